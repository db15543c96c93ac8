/**
 * Fixture: a process in the server's place. It builds a real sandbox and the test layout, installs the
 * server's file workers (or, given `in-process`, leaves the file work to itself, for a control), warms
 * alice's worker with one call, and prints `{"ready":…}` with the layout's paths and its own pid. On
 * the line `turn` it runs one turn's file tool calls and prints `{"done":…}` with their outcomes; on
 * `quit` it cleans up and exits. A test may kill it instead.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installFileWorkers } from '../../../src/file-worker/install-file-workers.ts';
import { executeTool } from '../../../src/tools/execution.ts';
import { InMemoryFreshnessLedger } from '../../../src/tools/freshness-ledger.ts';
import '../../../src/tools/builtin/register-builtin-tools.ts';
import { createSandboxLayout, createTestSandbox } from '../../sandbox/sandbox-host.ts';
import { serveFixtureCommands } from '../serve-fixture-commands.ts';

const mode = process.argv[2] === 'in-process' ? 'in-process' : 'worker';
const sandbox = createTestSandbox();
const layout = await createSandboxLayout(sandbox);
const workers = mode === 'worker' ? installFileWorkers(sandbox) : undefined;
writeFileSync(join(layout.alice, 'plan.txt'), 'first\nsecond\n');
const ledger = new InMemoryFreshnessLedger();
const call = (name: string, args: Record<string, unknown>) =>
  executeTool(name, args, { userId: 'alice', chatId: 'chat-1', reachable: layout.reachable, ledger });

// Warm: the worker exists before the turn, as it does after a chat's first call.
const warm = await call('list_directory', { path: '.' });
process.stdout.write(
  `${JSON.stringify({ ready: warm.ok, pid: process.pid, base: layout.base, alice: layout.alice, workers: workers?.pool?.workers().size ?? 0 })}\n`,
);

const turn = async () => {
  const outcomes = [
    await call('read_file', { path: 'plan.txt' }),
    await call('write_file', { path: 'notes/today.txt', content: 'written in the turn\n' }),
    await call('edit_file', { path: 'plan.txt', oldString: 'second', newString: 'third' }),
    await call('list_directory', { path: 'notes' }),
    await call('read_file', { path: 'notes/today.txt' }),
  ];
  return outcomes.map((outcome) => (outcome.ok ? 'ok' : `${outcome.error.classification}: ${outcome.error.message}`));
};

await serveFixtureCommands({
  turn,
  quit: () => {
    workers?.stop();
    sandbox.dispose();
    layout.remove();
  },
});
