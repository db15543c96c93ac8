/**
 * The transcript's side of a rerun (regenerate, retry, edit; docs/web.md, "Message actions"), as pure
 * functions the chat view calls and tests run without a DOM: which actions the transcript offers, the
 * entries a rerun replaces, and the stored message a user entry shows.
 */
import type { ChatMessage } from './api-client.ts';
import type { Transcript, TranscriptEntry } from './transcript-entries.ts';

type UserEntry = TranscriptEntry & { kind: 'user' };

/** How the last turn ended that calls for Retry rather than Regenerate. */
const FAILED_REASONS = new Set(['error', 'failed', 'lost']);

/** The last user message: Regenerate and Retry run it again. */
export function lastUserEntry(transcript: Transcript): UserEntry | undefined {
  for (let index = transcript.entries.length - 1; index >= 0; index -= 1) {
    const entry = transcript.entries[index]!;
    if (entry.kind === 'user') return entry;
  }
  return undefined;
}

/** What the action at the end of the transcript does: nothing while a turn runs or before any message. */
export function rerunAction(transcript: Transcript): 'regenerate' | 'retry' | undefined {
  if (transcript.running || lastUserEntry(transcript) === undefined) return undefined;
  return FAILED_REASONS.has(transcript.doneReason ?? '') ? 'retry' : 'regenerate';
}

/**
 * Takes the entries a rerun from `entry` replaces out of the transcript (`entry` and everything after
 * it; with `keep`, `entry` stays) and returns them.
 */
export function replaceFrom(transcript: Transcript, entry: UserEntry, keep: boolean): TranscriptEntry[] {
  const index = transcript.entries.indexOf(entry);
  if (index < 0) return [];
  return transcript.entries.splice(keep ? index + 1 : index);
}

/** Whether replaced entries hold a tool call: its effects stay, which the page says before it reruns. */
export function replacesToolCalls(entries: readonly TranscriptEntry[]): boolean {
  return entries.some((entry) => entry.kind === 'tool');
}

/**
 * The id of the stored message a user entry shows (an edit names it), from the chat's messages as the
 * server lists them now: the chat's user messages and the transcript's user entries are the same list,
 * in the same order, whether the page loaded them or sent them itself. Undefined when the two lists
 * differ (another tab changed the chat since): the page must be reloaded first.
 */
export function storedMessageId(
  transcript: Transcript,
  entry: UserEntry,
  messages: readonly ChatMessage[],
): string | undefined {
  const stored = messages.filter(
    (message) => (message.item as { type?: unknown } | undefined)?.type === 'user_text',
  );
  const users = transcript.entries.filter((candidate): candidate is UserEntry => candidate.kind === 'user');
  const index = users.indexOf(entry);
  const message = stored[index];
  if (index < 0 || stored.length !== users.length || message === undefined) return undefined;
  const text = (message.item as { text?: unknown }).text;
  return text === entry.text && typeof message.id === 'string' ? message.id : undefined;
}
