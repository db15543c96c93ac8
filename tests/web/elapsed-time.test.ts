/** How a running call's elapsed time reads. */
import { expect, test } from 'bun:test';
import { formatElapsed } from '../../web/elapsed-time.ts';

test.each([
  [0, '0 s'],
  [999, '0 s'],
  [42_500, '42 s'],
  [60_000, '1 min 00 s'],
  [185_000, '3 min 05 s'],
  [-5, '0 s'],
])('formatElapsed(%i) = %s', (milliseconds, text) => {
  expect(formatElapsed(milliseconds)).toBe(text);
});
