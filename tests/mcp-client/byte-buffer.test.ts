import { expect, test } from 'bun:test';
import { ByteBuffer } from '../../src/mcp-client/byte-buffer.ts';

test('ByteBuffer grows past its first size, keeps what was written, and cuts back', () => {
  const buffer = new ByteBuffer();
  const chunk = new Uint8Array(3000).fill(7);
  buffer.append(chunk, 0, 2000);
  buffer.push(9);
  buffer.append(chunk, 10, 10);
  expect(buffer.length).toBe(2001);
  expect([...buffer.view(1999)]).toEqual([7, 9]);
  buffer.truncate(5);
  buffer.truncate(50);
  expect([...buffer.view()]).toEqual([7, 7, 7, 7, 7]);
});
