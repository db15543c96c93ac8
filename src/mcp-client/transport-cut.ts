/**
 * How a result says the connection cut it (message-cutter.ts): a member of the JSON-RPC `result`, which
 * the SDK's result schemas pass through, read by the listing meter (to refuse a cut listing) and the
 * result mapper (to put the cut marker first).
 */

/** The `result` member that says the transport cut the result: `{bytes, limitBytes}`. */
export const TRANSPORT_CUT_KEY = 'mango/cut';

/** What {@link TRANSPORT_CUT_KEY} holds. */
export interface TransportCut {
  /** The result as the server sent it, in bytes. */
  bytes: number;
  /** The limit it went over. */
  limitBytes: number;
}

/** The cut a result carries, or undefined when it arrived whole. */
export function transportCutOf(result: Record<string, unknown>): TransportCut | undefined {
  const cut = result[TRANSPORT_CUT_KEY];
  if (typeof cut !== 'object' || cut === null) return undefined;
  const { bytes, limitBytes } = cut as Record<string, unknown>;
  return typeof bytes === 'number' && typeof limitBytes === 'number' ? { bytes, limitBytes } : undefined;
}
