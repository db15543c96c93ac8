/**
 * Storage of the secret key's probe and of the values sealed under the key, for the start-up check
 * (`secret-key-probe.ts`). Every replacement is conditional on the value read, so two instances
 * re-sealing at once never overwrite each other's work with a value neither reads.
 */

export interface SealedHeaderValue {
  userId: string;
  name: string;
  sealed: string;
}

export interface SecretKeyProbeRepository {
  /** The probe called `name`, or undefined when none was written yet. */
  readProbe(name: string): Promise<{ sealed: string; createdAt: string } | undefined>;
  /** Writes the probe unless one exists (another instance may win the race: read it again). */
  insertProbeIfAbsent(name: string, sealed: string, now: string): Promise<void>;
  /** Replaces the probe if it still is `expected`; false when it changed meanwhile. */
  replaceProbe(name: string, expected: string, sealed: string, now: string): Promise<boolean>;
  /** Every stored sealed value (users' MCP server headers). */
  listSealedHeaders(): Promise<SealedHeaderValue[]>;
  /** Replaces one sealed value if it still is `expected`; false when it changed or is gone. */
  replaceSealedHeaders(value: SealedHeaderValue, sealed: string, now: string): Promise<boolean>;
}
