/**
 * The JSON text of a turn event, as stored in the turn's event log and sent to clients. Never throws:
 * a payload JSON cannot represent (a BigInt or a cycle in a tool result) is replaced by an event of
 * the same type that says so, so one bad result cannot stop a turn's stream.
 */
import type { TurnEvent } from '../contracts/turn-event.ts';
import { errorMessage } from '../errors/error-message.ts';

function fallbackEvent(event: TurnEvent, error: unknown): Record<string, unknown> {
  const message = `This event could not be serialized to JSON: ${errorMessage(error)}`;
  if (event.type === 'tool_result') {
    const { callId, name, durationMs } = event;
    return {
      type: 'tool_result',
      callId,
      name,
      durationMs,
      ok: false,
      error: { classification: 'execution_error', message },
    };
  }
  return { type: event.type, error: message };
}

export function serializeTurnEvent(event: TurnEvent): string {
  try {
    return JSON.stringify(event);
  } catch (error) {
    return JSON.stringify(fallbackEvent(event, error));
  }
}
