/**
 * The words of a compact tool call: the short summary of its arguments on its one line ("src/app.ts",
 * "npm test", "**\/*.ts"), and a group's summary line ("5 tool calls: read_file ×3, grep, glob") with
 * how far the group got. Pure, unit-tested; the card and the group insert them as text.
 */
import type { ToolCallEntry } from './transcript-entries.ts';

/** Longest argument summary on a call's line, in characters (the line's CSS cuts it narrower still). */
export const MAX_SUMMARY_LENGTH = 80;

/** The arguments that say best what a call does, in the order they are looked for. */
const TELLING_ARGUMENTS = ['command', 'pattern', 'path', 'query', 'url', 'prompt', 'name', 'cwd'];

function shorten(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_SUMMARY_LENGTH ? `${line.slice(0, MAX_SUMMARY_LENGTH - 1)}…` : line;
}

/**
 * A call's arguments in a few words: the value of its most telling string argument (with a grep's or
 * glob's directory after its pattern), else its first string or number value, else empty. Arguments
 * still streaming, or not an object, have no summary.
 */
export function argumentSummary(argumentsText: string): string {
  let args: unknown;
  try {
    args = JSON.parse(argumentsText);
  } catch {
    return '';
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return '';
  const record = args as Record<string, unknown>;
  const telling = TELLING_ARGUMENTS.find((key) => typeof record[key] === 'string' && record[key] !== '');
  if (telling !== undefined) {
    const where = telling === 'pattern' ? (record.path ?? record.cwd) : undefined;
    return shorten(typeof where === 'string' ? `${record[telling]} in ${where}` : String(record[telling]));
  }
  const first = Object.values(record).find(
    (value) => (typeof value === 'string' && value !== '') || typeof value === 'number',
  );
  return first === undefined ? '' : shorten(String(first));
}

/** "5 tool calls: read_file ×3, grep, glob": the tools in the order they were first called. */
export function groupSummary(calls: readonly ToolCallEntry[]): string {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.name, (counts.get(call.name) ?? 0) + 1);
  const names = [...counts].map(([name, count]) => (count > 1 ? `${name} ×${count}` : name));
  return `${calls.length} tool call${calls.length === 1 ? '' : 's'}: ${names.join(', ')}`;
}

/** How far a group got: what waits, what runs, what failed, or "done". */
export function groupStatus(calls: readonly ToolCallEntry[]): {
  text: string;
  tone: 'live' | 'waiting' | 'failed' | 'done';
} {
  const count = (statuses: readonly ToolCallEntry['status'][]) =>
    calls.filter((call) => statuses.includes(call.status)).length;
  const waiting = count(['waiting']);
  const failed = count(['failed']);
  const live = count(['streaming', 'running', 'queued']);
  if (waiting > 0) return { text: `${waiting} waiting for your approval`, tone: 'waiting' };
  if (live > 0) return { text: `${calls.length - live} of ${calls.length} done`, tone: 'live' };
  if (failed > 0) return { text: `${failed} failed`, tone: 'failed' };
  return { text: 'done', tone: 'done' };
}
