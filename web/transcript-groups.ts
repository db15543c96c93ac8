/**
 * The transcript as the chat view lays it out: every entry on its own, except tool calls, which come in
 * groups — the consecutive calls of one model response (`ToolCallEntry.step`) are one group, so a
 * response that calls five tools takes one block, not five. A lone call is a group of one. Pure, so
 * live streams, re-attached ones and stored history are laid out alike and unit-tested.
 */
import type { ToolCallEntry, TranscriptEntry } from './transcript-entries.ts';

export type TranscriptItem =
  | { kind: 'entry'; entry: Exclude<TranscriptEntry, ToolCallEntry> }
  | { kind: 'calls'; calls: ToolCallEntry[] };

export function transcriptItems(entries: readonly TranscriptEntry[]): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'tool') {
      items.push({ kind: 'entry', entry });
      continue;
    }
    const last = items.at(-1);
    if (last?.kind === 'calls' && last.calls[0]!.step === entry.step) last.calls.push(entry);
    else items.push({ kind: 'calls', calls: [entry] });
  }
  return items;
}
