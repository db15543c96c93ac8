/**
 * One secret key across the instances of a database. `MANGO_SECRET_KEY` seals users' MCP server
 * headers; an instance with another key would seal values the others cannot open and fail to open
 * theirs. So the database holds a probe sealed under the key, and every instance opens it at start:
 *
 * - The key opens the probe: the instance starts.
 * - It does not (another key, or none while the probe exists): the start is refused with a
 *   `ConfigError` naming `MANGO_SECRET_KEY`; nothing is written.
 * - No probe yet (a new database, or a deployment older than the probe): the instance writes one, but
 *   only after checking that its key opens the values already stored, if any (at least one of them:
 *   a key that opens none is not the deployment's); two newcomers racing with different keys both
 *   read the one probe that won, and the loser refuses.
 * - Rotation: with `MANGO_SECRET_KEY` the new key and `MANGO_SECRET_KEY_PREVIOUS` the old one, a
 *   probe or value the old key sealed is opened and re-sealed under the new key (compare-and-set, so
 *   concurrent instances re-seal each value once).
 * - No key and no probe: nothing to compare, the instance starts without one (users cannot add servers
 *   with headers on it), as before the probe.
 */
import { ConfigError } from '../config/config-error.ts';
import { HeaderCipher } from './header-cipher.ts';
import type { SecretKeyProbeRepository } from './secret-key-probe-repository.ts';

/** The probe of the key that seals MCP server headers. */
export const SECRET_KEY_PROBE_NAME = 'mcp-headers';
/** What the probe seals; anything else opened from it means the row was tampered with. */
const PROBE_TEXT = 'mango secret key probe v1';

export interface SecretKeyCheckInput {
  repository: SecretKeyProbeRepository;
  /** `MANGO_SECRET_KEY`. */
  current: string | undefined;
  /** `MANGO_SECRET_KEY_PREVIOUS`. */
  previous: string | undefined;
  now: () => number;
}

const ROTATION_HINT =
  'Set the same MANGO_SECRET_KEY on every instance of this database; to change the key, set the new one as MANGO_SECRET_KEY and the old one as MANGO_SECRET_KEY_PREVIOUS (docs/operating.md, "One secret key").';

function iso(milliseconds: number): string {
  return new Date(milliseconds).toISOString();
}

/**
 * Checks (and on a first start writes) the probe; re-seals what the previous key sealed.
 * @returns the start-up line saying what was found.
 * @throws ConfigError naming the variable when this instance's key is not the deployment's.
 */
export async function checkSecretKey(input: SecretKeyCheckInput): Promise<string> {
  const { repository, current, previous } = input;
  if (current === undefined) {
    if (previous !== undefined) {
      throw new ConfigError(
        'MANGO_SECRET_KEY_PREVIOUS is set but MANGO_SECRET_KEY is not: the previous key only opens values while the new key seals them. Set MANGO_SECRET_KEY to the new key.',
        'MANGO_SECRET_KEY',
      );
    }
    const probe = await repository.readProbe(SECRET_KEY_PROBE_NAME);
    if (probe !== undefined) {
      throw new ConfigError(
        `MANGO_SECRET_KEY is not set, but the instances of this database seal users' MCP server headers with one (its probe was written ${probe.createdAt}). ${ROTATION_HINT}`,
        'MANGO_SECRET_KEY',
      );
    }
    return 'MANGO_SECRET_KEY is not set: users cannot add MCP servers with headers.';
  }
  const cipher = new HeaderCipher(current, previous);
  let probe = await repository.readProbe(SECRET_KEY_PROBE_NAME);
  let wrote = false;
  if (probe === undefined) {
    await checkStoredValues(repository, cipher);
    await repository.insertProbeIfAbsent(
      SECRET_KEY_PROBE_NAME,
      cipher.sealText(PROBE_TEXT),
      iso(input.now()),
    );
    probe = await repository.readProbe(SECRET_KEY_PROBE_NAME);
    if (probe === undefined) throw new Error('The secret key probe was written but cannot be read back.');
    wrote = true;
  }
  const opened = openProbe(cipher, probe.sealed);
  if (opened === 'previous') {
    await repository.replaceProbe(
      SECRET_KEY_PROBE_NAME,
      probe.sealed,
      cipher.sealText(PROBE_TEXT),
      iso(input.now()),
    );
  }
  const resealed = previous === undefined ? 0 : await resealPrevious(repository, cipher, input.now);
  const parts = [
    wrote
      ? 'MANGO_SECRET_KEY: wrote the key probe into the database'
      : 'MANGO_SECRET_KEY opens the key probe of this database',
  ];
  if (previous !== undefined) {
    parts.push(
      `re-sealed ${resealed} value${resealed === 1 ? '' : 's'} of MANGO_SECRET_KEY_PREVIOUS under it; remove MANGO_SECRET_KEY_PREVIOUS once every instance runs with the new key`,
    );
  }
  return `${parts.join('; ')}.`;
}

function openProbe(cipher: HeaderCipher, sealed: string): 'current' | 'previous' {
  let opened: { text: string; key: 'current' | 'previous' };
  try {
    opened = cipher.openText(sealed);
  } catch {
    throw new ConfigError(
      `MANGO_SECRET_KEY cannot open the key probe of this database: it is not the key the other instances (or an earlier start) use, so users' MCP server headers would be unreadable here. ${ROTATION_HINT}`,
      'MANGO_SECRET_KEY',
    );
  }
  if (opened.text !== PROBE_TEXT) {
    throw new ConfigError(
      'The key probe of this database opens, but does not hold what Mango sealed into it: the row secret_key_probes was altered.',
      'MANGO_SECRET_KEY',
    );
  }
  return opened.key;
}

/** A deployment older than the probe: the key must open what is stored before it may write one. */
async function checkStoredValues(repository: SecretKeyProbeRepository, cipher: HeaderCipher): Promise<void> {
  const values = await repository.listSealedHeaders();
  if (values.length === 0) return;
  const opens = values.some((value) => {
    try {
      cipher.openText(value.sealed);
      return true;
    } catch {
      return false;
    }
  });
  if (!opens) {
    throw new ConfigError(
      `MANGO_SECRET_KEY opens none of the ${values.length} sealed header value${values.length === 1 ? '' : 's'} stored in this database: it is not the key they were sealed with. ${ROTATION_HINT}`,
      'MANGO_SECRET_KEY',
    );
  }
}

async function resealPrevious(
  repository: SecretKeyProbeRepository,
  cipher: HeaderCipher,
  now: () => number,
): Promise<number> {
  let count = 0;
  for (const value of await repository.listSealedHeaders()) {
    let opened: { text: string; key: 'current' | 'previous' };
    try {
      opened = cipher.openText(value.sealed);
    } catch {
      continue; // sealed under neither key: it stays unreadable, as it was
    }
    if (opened.key !== 'previous') continue;
    if (await repository.replaceSealedHeaders(value, cipher.sealText(opened.text), iso(now()))) count += 1;
  }
  return count;
}
