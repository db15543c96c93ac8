/**
 * A freshness ledger for one tool call whose observations count only once the caller commits them (issue
 * 3, "Freshness ledger": the ledger records what the model has read). The chat loop commits after the
 * call's result reached the model whole; a result cut by the turn's output budget, a failure or a timeout
 * leaves the chat's ledger as it was, so write_file can never overwrite lines the model did not see.
 *
 * Reads inside the call see its own staged observations first. A commit merges with whatever other calls
 * committed meanwhile (read-only calls run concurrently), so chunked reads of one file still add up.
 */
import { copyObservation, type FileObservation, type FreshnessLedger } from '../freshness-ledger.ts';
import { mergeCoverage } from './freshness.ts';

export interface StagedFreshnessLedger extends FreshnessLedger {
  /** Applies the staged observations to the underlying ledger. Call at most once. */
  commit(): Promise<void>;
}

/**
 * Pure: `staged` recorded on top of `current`. Observations of the same content pool their coverage;
 * different content means `staged` is the newer knowledge and replaces `current`.
 */
export function mergeObservations(
  current: FileObservation | undefined,
  staged: FileObservation,
): FileObservation {
  if (!current || current.sha256 !== staged.sha256) return copyObservation(staged);
  const totalLines = staged.totalLines ?? current.totalLines;
  let coverage = { coveredThrough: staged.coveredThrough, coveredRanges: staged.coveredRanges ?? [] };
  const added: [number, number][] = [[1, current.coveredThrough], ...(current.coveredRanges ?? [])];
  for (const range of added) coverage = mergeCoverage(coverage.coveredThrough, coverage.coveredRanges, range);
  // Reads that ran concurrently each saw the ledger without the others: together they may cover the file.
  const complete =
    current.complete ||
    staged.complete ||
    (totalLines !== undefined && coverage.coveredThrough >= totalLines);
  const merged: FileObservation = {
    ...copyObservation(staged),
    coveredThrough: coverage.coveredThrough,
    complete,
  };
  delete merged.coveredRanges;
  if (!complete && coverage.coveredRanges.length > 0) merged.coveredRanges = coverage.coveredRanges;
  return merged;
}

export function createStagedLedger(underlying: FreshnessLedger): StagedFreshnessLedger {
  /** path → staged observation, or null for a staged delete. */
  const staged = new Map<string, FileObservation | null>();
  return {
    async get(path) {
      if (!staged.has(path)) return underlying.get(path);
      const observation = staged.get(path);
      return observation ? copyObservation(observation) : undefined;
    },
    async put(observation) {
      staged.set(observation.path, copyObservation(observation));
    },
    async delete(path) {
      staged.set(path, null);
    },
    async commit() {
      for (const [path, observation] of staged) {
        if (observation === null) await underlying.delete(path);
        else await underlying.put(mergeObservations(await underlying.get(path), observation));
      }
      staged.clear();
    },
  };
}
