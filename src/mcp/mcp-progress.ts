/**
 * Tool progress events → MCP `notifications/progress` (per image for generate_image).
 *
 * MCP requires `progress` to increase with every notification for one token, and a `total`, when
 * sent, is what `progress` counts up to. So:
 * - an event that says how many units are done (`completed`, a finite number, with `total` the units
 *   planned: generate_image's `image_generation_started` has 0, each image outcome the images finished)
 *   reports that count, so its start is 0/N and its last image N/N;
 * - an event without `completed` counts one step past the previous notification (1, 2, 3…);
 * - a value that would not increase is raised to one past the previous, and a `total` the progress
 *   would exceed is left out of that notification: progress never goes past its total.
 * The message is the event's `message` when it has one, else its `type`.
 */
import type { ProgressNotification } from '@modelcontextprotocol/sdk/types.js';
import type { ToolProgressEvent } from '../contracts/tool-progress-event.ts';

export type ProgressToken = string | number;

function finiteNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Returns the `onProgress` callback for one tool call that sends each event to the client under
 * `progressToken`. Sending is fire-and-forget: a lost notification never fails the call.
 */
export function createProgressReporter(
  progressToken: ProgressToken,
  send: (notification: ProgressNotification) => Promise<void>,
  onSendError: (error: unknown) => void = () => {},
): (event: ToolProgressEvent) => void {
  let previous: number | undefined;
  return (event) => {
    const completed = finiteNumber(event.completed);
    const next = previous === undefined ? 1 : previous + 1;
    const progress = completed === undefined ? next : Math.max(completed, previous === undefined ? 0 : next);
    previous = progress;
    const params: ProgressNotification['params'] = {
      progressToken,
      progress,
      message: typeof event.message === 'string' ? event.message : event.type,
    };
    const total = finiteNumber(event.total);
    if (total !== undefined && progress <= total) params.total = total;
    send({ method: 'notifications/progress', params }).catch(onSendError);
  };
}
