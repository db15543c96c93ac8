/**
 * The `after` of `GET /api/chats/:id/turns/current/events` (or the `Last-Event-ID` an EventSource
 * resends): a sequence number, checked strictly so a typo is a clear 422, never "replay everything".
 */
import { ChatError } from '../../chat/chat-errors.ts';

export function parseAfterSeq(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  const value = Number(raw);
  if (!/^(0|[1-9]\d*)$/.test(raw) || !Number.isSafeInteger(value)) {
    throw new ChatError(
      'invalid_request',
      `after must be the sequence number of an event (an integer of 0 or more); got "${raw}".`,
    );
  }
  return value;
}
