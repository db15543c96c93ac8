/**
 * The root server touches no name inside a workspace during a turn: with file workers, every file tool
 * call of the turn (read, create with a parent, edit, list, read, a grep and a glob of the tree) is done in
 * alice's worker, so a trace
 * of the server's own threads (strace attached to its pid, following its threads, not the worker,
 * which is another process started before) shows no open, stat, link, directory or rename call naming
 * a path in the layout, nor one made through a descriptor of one (`-y`). The same turn done by the
 * server itself is the control: its trace names the workspace, so the test can tell. With
 * `allowedPaths` and `deniedPaths` entries in alice's tree, the entries are resolved in her worker too:
 * the server follows none of her links, not even to decide what the settings cover.
 */
import { expect, test } from 'bun:test';
import { strace, traceNamesDuring } from '../helpers/server-trace.ts';
import { describeSandbox } from '../sandbox/sandbox-host.ts';
import { startServerProcess } from './file-worker-server-process.ts';

/** The turn's glob of alice's tree: what it finds there. */
const GLOBBED = {
  pattern: '**/*.txt',
  cwd: '<base>/workspaces/alice',
  matches: ['notes/today.txt', 'plan.txt', 'private/key.txt'],
  truncated: false,
};
const REFUSED_ONE =
  '1 matching path was left out because the path policy refuses it (outside what this chat can reach, outside allowedPaths, or under deniedPaths); it cannot be read in this chat.';

const traced = strace !== null || process.env.MANGO_REQUIRE_SANDBOX === '1' ? test : test.skip;

/** The server's calls that name a path under `base` during one turn, run in `mode`. */
async function turnTrace(
  mode: 'worker' | 'in-process',
  kind: 'turn' | 'turn-with-path-settings' = 'turn',
): Promise<{ outcomes: string[]; lines: string[] }> {
  const server = startServerProcess(mode);
  try {
    const ready = await server.ready();
    expect(ready.ready).toBe(true);
    const { result, lines } = await traceNamesDuring(ready.pid, ready.base, () => server.turn(kind));
    await server.quit();
    // Each run has a layout of its own: outcomes name it as <base>.
    return { outcomes: result.map((outcome) => outcome.replaceAll(ready.base, '<base>')), lines };
  } finally {
    server.cleanUp();
  }
}

describeSandbox('what the server itself opens during a turn', () => {
  traced(
    'with file workers: nothing in the workspace; doing the work itself: the workspace, many times',
    async () => {
      const worker = await turnTrace('worker');
      expect(worker.outcomes).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok', `ok: ${JSON.stringify(GLOBBED)}`]);
      expect(worker.lines).toEqual([]);
      const control = await turnTrace('in-process');
      expect(control.outcomes).toEqual(worker.outcomes);
      expect(control.lines.length).toBeGreaterThan(5);
      expect(control.lines.some((line) => line.includes('plan.txt'))).toBe(true);
    },
    60_000,
  );
  traced(
    'with path settings naming the workspace: the entries are resolved in the worker, not by the server',
    async () => {
      const worker = await turnTrace('worker', 'turn-with-path-settings');
      const refused = worker.outcomes.at(-1) ?? '';
      expect(worker.outcomes.slice(0, 7)).toEqual([
        'ok',
        'ok',
        'ok',
        'ok',
        'ok',
        'ok',
        `ok: ${JSON.stringify({ ...GLOBBED, matches: ['notes/today.txt', 'plan.txt'], notice: REFUSED_ONE })}`,
      ]);
      expect(refused).toBe(
        'permission_denied: Access to "private/key.txt" (resolved to <base>/workspaces/alice/private/key.txt) is denied: it is inside the denied path "<base>/workspaces/alice/hidden" (deniedPaths setting).',
      );
      expect(worker.lines).toEqual([]);
      const control = await turnTrace('in-process', 'turn-with-path-settings');
      expect(control.outcomes).toEqual(worker.outcomes);
      expect(control.lines.some((line) => line.includes('hidden'))).toBe(true);
    },
    60_000,
  );
});
