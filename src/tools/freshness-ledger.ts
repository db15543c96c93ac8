/**
 * The freshness ledger: per chat, what the model has read of each file. `write_file` and `edit_file`
 * refuse to overwrite a file the chat has not completely read, or that changed on disk since.
 *
 * This module holds the contract and the in-memory implementation; the server adds a database one
 * (`file_observations`) so a restart or a second API instance keeps the guarantee.
 */

/** What one chat knows about one file, keyed by its real (symlink-resolved) absolute path. */
export interface FileObservation {
  /** Real absolute path of the file. */
  path: string;
  /** sha256 (hex) of the whole file at the time of the observation. */
  sha256: string;
  size: number;
  mtimeMs: number;
  /** Every line 1..coveredThrough has been shown to the model (0 for none). */
  coveredThrough: number;
  /**
   * Lines shown beyond the prefix, as sorted, disjoint, inclusive `[first, last]` ranges that start
   * after `coveredThrough + 1` (reads taken out of order, or concurrently). Optional: a ledger that
   * does not keep it still works, and reads must then join up from line 1 to count.
   */
  coveredRanges?: [number, number][];
  /** The model has seen the whole file (every line, or a byte view). */
  complete: boolean;
  /**
   * Line count of the observed content, when known. Lets a merge of partial observations (reads that
   * ran concurrently, each before the others were recorded) tell when together they cover the file.
   * Optional: a stored observation may lack it, and then only `complete` says so.
   */
  totalLines?: number;
}

export interface FreshnessLedger {
  get(path: string): Promise<FileObservation | undefined>;
  put(observation: FileObservation): Promise<void>;
  delete(path: string): Promise<void>;
}

/** A chat's ledger as the chat service holds it: the tools' view, and forgetting for reruns. */
export interface ChatFreshnessLedger extends FreshnessLedger {
  /**
   * Forgets every observation recorded at or after `since` (epoch milliseconds, on the ledger's clock):
   * a rerun replaced the part of the chat that made them, so the model no longer has those reads in
   * front of it. An observation an earlier read made and a later one updated is forgotten too, which
   * only costs the model a read again; a write is never let through on a read it cannot see.
   */
  forgetSince(since: number): Promise<void>;
}

/** A deep copy: ledgers hand out and keep observations that share nothing with their callers. */
export function copyObservation(observation: FileObservation): FileObservation {
  const copy = { ...observation };
  if (observation.coveredRanges) {
    copy.coveredRanges = observation.coveredRanges.map(([first, last]) => [first, last]);
  }
  return copy;
}

/** A ledger that lives as long as the process. One instance per chat. */
export class InMemoryFreshnessLedger implements ChatFreshnessLedger {
  readonly #observations = new Map<string, FileObservation>();
  /** When each observation was last recorded, for `forgetSince`. */
  readonly #recordedAt = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  async get(path: string): Promise<FileObservation | undefined> {
    const observation = this.#observations.get(path);
    return observation ? copyObservation(observation) : undefined;
  }

  async put(observation: FileObservation): Promise<void> {
    this.#observations.set(observation.path, copyObservation(observation));
    this.#recordedAt.set(observation.path, this.#now());
  }

  async delete(path: string): Promise<void> {
    this.#observations.delete(path);
    this.#recordedAt.delete(path);
  }

  async forgetSince(since: number): Promise<void> {
    for (const [path, recordedAt] of this.#recordedAt) {
      if (recordedAt >= since) await this.delete(path);
    }
  }
}

const ledgersByChat = new Map<string, InMemoryFreshnessLedger>();

/**
 * The process-wide in-memory ledger of a chat, used when a caller gives no ledger. A call without a
 * chat id gets a ledger of its own (nothing it reads is remembered for a later call).
 */
export function getInMemoryLedgerForChat(chatId: string | undefined): ChatFreshnessLedger {
  if (chatId === undefined) return new InMemoryFreshnessLedger();
  let ledger = ledgersByChat.get(chatId);
  if (!ledger) {
    ledger = new InMemoryFreshnessLedger();
    ledgersByChat.set(chatId, ledger);
  }
  return ledger;
}
