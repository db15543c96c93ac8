/**
 * A refusal of the protected set made in a user's file worker is logged by the server, as one it made
 * itself: one `tool_access_refused` line with the call's user, chat and clock, and nothing of it on
 * the worker's stderr. A worker that names as protected a path the server does not protect sent a
 * reply that is not valid: it is stopped, the call fails, and nothing is logged.
 */
import { afterEach, expect, test } from 'bun:test';
import { join } from 'node:path';
import { setAccessLogWriter } from '../../src/tools/access/access-log.ts';
import { ProtectedPathRefusedError } from '../../src/tools/access/protected-path-refused-error.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { InMemoryFreshnessLedger } from '../../src/tools/freshness-ledger.ts';
import { expectFailure, expectOk } from '../helpers/call-tool.ts';
import { describeSandbox, useTestSandbox } from '../sandbox/sandbox-host.ts';
import { useFileWorkers, workerChat } from './file-worker-test-host.ts';

const NOW = Date.parse('2026-12-04T01:00:00Z');
const SERVER_SENTENCE = "it belongs to the server, and the server's files are never reachable from a tool.";

let logged: string[] = [];
let restore: (() => void) | undefined;
const captureAccessLog = () => {
  logged = [];
  restore = setAccessLogWriter((line) => logged.push(line));
};
afterEach(() => restore?.());

describeSandbox('protected-path refusals in a worker', () => {
  const host = useTestSandbox();
  const workers = useFileWorkers(() => host.sandbox);

  const call = (name: string, args: Record<string, unknown>) =>
    executeTool(name, args, {
      userId: 'alice',
      chatId: 'chat-7',
      reachable: host.layout.reachable,
      ledger: new InMemoryFreshnessLedger(),
      now: () => NOW,
    });

  test('a read of the data directory, refused in the worker, is logged once by the server', async () => {
    const { data } = host.layout;
    captureAccessLog();
    const path = join(data, 'mango.db');
    expect(expectFailure(await call('read_file', { path }))).toEqual({
      classification: 'permission_denied',
      message: `Access to ${JSON.stringify(path)} is denied: ${SERVER_SENTENCE}`,
    });
    expect(logged.map((line) => JSON.parse(line))).toEqual([
      {
        time: '2026-12-04T01:00:00.000Z',
        level: 'warn',
        event: 'tool_access_refused',
        reason: 'protected_path',
        userId: 'alice',
        chatId: 'chat-7',
        path,
        real: path,
        protectedPath: data,
      },
    ]);
    // It went through alice's worker, which wrote nothing of it to its stderr.
    expect([...workers.pool.workers().keys()].map((key) => JSON.parse(key)[0])).toEqual(['alice']);
    expect(workers.logged).toEqual([]);
  });

  test('a refusal naming a path the server does not protect stops the worker; nothing is logged', async () => {
    const { alice } = host.layout;
    const chat = workerChat('alice', () => host.layout.reachable);
    expectOk(await chat.call('list_directory', { path: '.' }));
    const worker = await workers.pool.acquire('alice', host.layout.reachable);
    worker.call = async () => {
      throw new ProtectedPathRefusedError('Access to "a.txt" is denied.', {
        path: 'a.txt',
        real: join(alice, 'a.txt'),
        protectedPath: alice,
      });
    };
    captureAccessLog();
    expect(expectFailure(await chat.call('read_file', { path: 'a.txt' }))).toEqual({
      classification: 'execution_error',
      message: `The file worker of this call sent a reply that is not valid (it refused a path as protected by ${alice}, which does not protect that path on this server); it was stopped, and nothing of the reply was used.`,
    });
    expect(logged).toEqual([]);
    await worker.exited;
    expect(worker.alive).toBe(false);
  });
});
