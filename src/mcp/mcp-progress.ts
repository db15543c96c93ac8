/**
 * Tool progress events → MCP `notifications/progress` (issue 10: "progress notifications for
 * generate_image per image").
 *
 * MCP requires `progress` to increase with every notification for one token, so it counts the
 * events the tool reported (1, 2, 3…); a numeric `total` on the event (e.g. the number of images
 * planned) is passed on, and the message is the event's `message` when it has one, else its `type`.
 */
import type { ProgressNotification } from '@modelcontextprotocol/sdk/types.js';
import type { ToolProgressEvent } from '../tools/types.ts';

export type ProgressToken = string | number;

/**
 * Returns the `onProgress` callback for one tool call that sends each event to the client under
 * `progressToken`. Sending is fire-and-forget: a lost notification never fails the call.
 */
export function createProgressReporter(
  progressToken: ProgressToken,
  send: (notification: ProgressNotification) => Promise<void>,
  onSendError: (error: unknown) => void = () => {},
): (event: ToolProgressEvent) => void {
  let progress = 0;
  return (event) => {
    progress += 1;
    const params: ProgressNotification['params'] = {
      progressToken,
      progress,
      message: typeof event.message === 'string' ? event.message : event.type,
    };
    if (typeof event.total === 'number' && Number.isFinite(event.total)) params.total = event.total;
    send({ method: 'notifications/progress', params }).catch(onSendError);
  };
}
