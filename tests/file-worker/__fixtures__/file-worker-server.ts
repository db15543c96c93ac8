/**
 * Fixture: a process in the server's place. It builds a real sandbox and the test layout, installs the
 * server's file workers (or, given `in-process`, leaves the file work to itself, for a control), warms
 * alice's worker with one call, and prints `{"ready":…}` with the layout's paths and its own pid. On
 * the line `turn` it runs one turn's file tool calls (a grep and a glob of her tree last) and prints
 * `{"done":…}` with their outcomes; on
 * `turn-with-path-settings` the same calls with `allowedPaths` and `deniedPaths` entries inside
 * alice's workspace (a denied link among them) and one read the denial refuses; on `quit` it cleans up
 * and exits. A test may kill it instead.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
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
mkdirSync(join(layout.alice, 'private'));
writeFileSync(join(layout.alice, 'private', 'key.txt'), 'secret\n');
symlinkSync('private', join(layout.alice, 'hidden'));
const ledger = new InMemoryFreshnessLedger();
/** Path settings whose entries name alice's tree: resolving them means following her links. */
const pathSettings = {
  parameters: {
    allowedPaths: [{ path: layout.alice, enabled: true }],
    deniedPaths: [{ path: join(layout.alice, 'hidden'), enabled: true }],
  },
};
let settings: typeof pathSettings | undefined;
const call = (name: string, args: Record<string, unknown>) =>
  executeTool(name, args, { userId: 'alice', chatId: 'chat-1', reachable: layout.reachable, ledger }, settings);

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
    await call('grep', { pattern: 'third|turn', path: '.' }),
  ];
  const described = await Promise.all(outcomes.map((outcome) => describe(Promise.resolve(outcome))));
  // A walk of alice's tree, described by what it found, so the trace covers a glob that did its work.
  const globbed = await call('glob', { pattern: '**/*.txt' });
  const found = globbed.ok ? `ok: ${JSON.stringify(globbed.result)}` : await describe(Promise.resolve(globbed));
  return [...described, found];
};

async function describe(call: ReturnType<typeof executeTool>): Promise<string> {
  const outcome = await call;
  return outcome.ok ? 'ok' : `${outcome.error.classification}: ${outcome.error.message}`;
}

async function turnWithPathSettings(): Promise<string[]> {
  settings = pathSettings;
  try {
    return [...(await turn()), await describe(call('read_file', { path: 'private/key.txt' }))];
  } finally {
    settings = undefined;
  }
}

await serveFixtureCommands({
  rounds: { turn, 'turn-with-path-settings': turnWithPathSettings },
  quit: () => {
    workers?.stop();
    sandbox.dispose();
    layout.remove();
  },
});
