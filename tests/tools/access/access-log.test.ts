import { expect, test } from 'bun:test';
import { logProtectedPathRefusal, setAccessLogWriter } from '../../../src/tools/access/access-log.ts';

test('one JSON line per refusal, to the writer in force; restoring brings back the previous writer', () => {
  const outer: string[] = [];
  const inner: string[] = [];
  const restoreOuter = setAccessLogWriter((line) => outer.push(line));
  const restoreInner = setAccessLogWriter((line) => inner.push(line));
  const refusal = {
    userId: 'u1',
    chatId: undefined,
    path: '/proc/self/environ',
    real: '/proc/self/environ',
    protectedPath: '/proc',
    at: Date.parse('2026-12-01T08:30:00Z'),
  };
  logProtectedPathRefusal(refusal);
  restoreInner();
  logProtectedPathRefusal({ ...refusal, chatId: 'c1' });
  restoreOuter();
  expect(inner).toEqual([
    '{"time":"2026-12-01T08:30:00.000Z","level":"warn","event":"tool_access_refused","reason":"protected_path","userId":"u1","chatId":null,"path":"/proc/self/environ","real":"/proc/self/environ","protectedPath":"/proc"}',
  ]);
  expect(outer.map((line) => JSON.parse(line).chatId)).toEqual(['c1']);
});
