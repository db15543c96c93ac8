/**
 * `createProgressReporter`: progress increases with every notification and never exceeds its total,
 * for events that carry a completed count (generate_image) and for events that do not.
 */
import { expect, test } from 'bun:test';
import type { ProgressNotification } from '@modelcontextprotocol/sdk/types.js';
import type { ToolProgressEvent } from '../../src/contracts/tool-progress-event.ts';
import { createProgressReporter } from '../../src/mcp/mcp-progress.ts';

function report(events: ToolProgressEvent[]): ProgressNotification['params'][] {
  const sent: ProgressNotification['params'][] = [];
  const onProgress = createProgressReporter('token-1', async (notification) => {
    sent.push(notification.params);
  });
  for (const event of events) onProgress(event);
  return sent;
}

test('a start event with completed 0 and one outcome per unit: 0/N … N/N', () => {
  expect(
    report([
      { type: 'image_generation_started', total: 3, completed: 0, message: 'generating 3 images' },
      { type: 'image_completed', total: 3, completed: 1, message: 'image 1 of 3 done' },
      { type: 'image_failed', total: 3, completed: 2, message: 'image 2 of 3 failed: x' },
      { type: 'image_completed', total: 3, completed: 3, message: 'image 3 of 3 done' },
    ]),
  ).toEqual([
    { progressToken: 'token-1', progress: 0, total: 3, message: 'generating 3 images' },
    { progressToken: 'token-1', progress: 1, total: 3, message: 'image 1 of 3 done' },
    { progressToken: 'token-1', progress: 2, total: 3, message: 'image 2 of 3 failed: x' },
    { progressToken: 'token-1', progress: 3, total: 3, message: 'image 3 of 3 done' },
  ]);
});

test('events without completed count steps from 1; the message falls back to the type', () => {
  expect(
    report([
      { type: 'a', total: 2 },
      { type: 'b', total: 2 },
    ]),
  ).toEqual([
    { progressToken: 'token-1', progress: 1, total: 2, message: 'a' },
    { progressToken: 'token-1', progress: 2, total: 2, message: 'b' },
  ]);
});

test('more events than the total: progress keeps increasing and the total is left out past it', () => {
  const sent = report([
    { type: 'a', total: 1 },
    { type: 'b', total: 1 },
    { type: 'c', total: 1 },
  ]);
  expect(sent.map(({ progress, total }) => ({ progress, total }))).toEqual([
    { progress: 1, total: 1 },
    { progress: 2, total: undefined },
    { progress: 3, total: undefined },
  ]);
  for (const params of sent)
    if (params.total !== undefined) expect(params.progress).toBeLessThanOrEqual(params.total);
});

test('a completed count that does not increase is raised to one past the previous', () => {
  const sent = report([
    { type: 'x', total: 5, completed: 2 },
    { type: 'y', total: 5, completed: 2 },
    { type: 'z', total: 5, completed: 1 },
  ]);
  expect(sent.map((params) => params.progress)).toEqual([2, 3, 4]);
});
