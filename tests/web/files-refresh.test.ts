import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { readOnlyLocalTraits } from '../../src/tools/tool-traits.ts';
import type { ToolSettingsDescriptor } from '../../web/api-client.ts';
import {
  announceToolResult,
  canChangeFiles,
  createRefreshCoalescer,
  refreshAfterToolResults,
} from '../../web/files-refresh.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

/** A `defer` run by hand: each scheduled callback waits in `due` until the test calls it. */
function handDefer() {
  const due: (() => void)[] = [];
  return { due, defer: (run: () => void) => void due.push(run) };
}

/** A refresh the test ends by hand, counting its runs. */
function handRefresh() {
  const ends: (() => void)[] = [];
  let runs = 0;
  return {
    ends,
    runs: () => runs,
    refresh: () =>
      new Promise<void>((resolve) => {
        runs += 1;
        ends.push(resolve);
      }),
  };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('which results can change files: the tool says so, a name list does not', () => {
  // Tools that exist only here: the page knows nothing of their names, only what they declare.
  let api: TestApp;
  let tools: Map<string, ToolSettingsDescriptor>;
  beforeAll(async () => {
    const registry = new ToolRegistry();
    registry.register(makeTool({ name: 'peek', traits: readOnlyLocalTraits('json') }));
    registry.register(
      makeTool({
        name: 'scribble',
        traits: { ...readOnlyLocalTraits('json'), readOnly: false, approvalDefault: 'never' },
      }),
    );
    registry.register(makeTool({ name: 'undeclared', traits: undefined }));
    api = await createTestApp('sqlite', registry);
    const { token } = await api.deps.users.create('alice');
    const { json } = await api.request('GET', '/api/settings/tools', { token });
    tools = new Map((json as { tools: ToolSettingsDescriptor[] }).tools.map((tool) => [tool.name, tool]));
  });
  afterAll(() => api.dispose());

  test('the descriptor carries readOnly; not read-only, undeclared or unknown tools refresh', () => {
    expect([...tools.values()].map(({ name, readOnly }) => [name, readOnly])).toEqual([
      ['peek', true],
      ['scribble', false],
      // No traits: the cautious answer.
      ['undeclared', false],
    ]);
    expect(
      ['peek', 'scribble', 'undeclared', 'added_later'].map((name) => canChangeFiles(name, tools)),
    ).toEqual([false, true, true, true]);
    // Before the list arrives (or when it failed), every result counts.
    expect(canChangeFiles('peek', undefined)).toBe(true);
  });
});

describe('createRefreshCoalescer', () => {
  test('a burst of requests is one refresh', async () => {
    const { due, defer } = handDefer();
    const refresh = handRefresh();
    const coalescer = createRefreshCoalescer(refresh.refresh, defer);
    for (let index = 0; index < 5; index += 1) coalescer.request();
    expect(due.length).toBe(1);
    due.shift()!();
    expect(refresh.runs()).toBe(1);
    refresh.ends.shift()!();
    await settled();
    expect(due.length).toBe(0);
    expect(refresh.runs()).toBe(1);
  });

  test('requests while a refresh runs give exactly one more after it, never two at once', async () => {
    const { due, defer } = handDefer();
    const refresh = handRefresh();
    const coalescer = createRefreshCoalescer(refresh.refresh, defer);
    coalescer.request();
    due.shift()!();
    coalescer.request();
    coalescer.request();
    expect(due.length).toBe(0);
    expect(refresh.runs()).toBe(1);
    refresh.ends.shift()!();
    await settled();
    expect(due.length).toBe(1);
    due.shift()!();
    expect(refresh.runs()).toBe(2);
    refresh.ends.shift()!();
    await settled();
    expect(due.length).toBe(0);
  });

  test('a failed refresh does not stop the next', async () => {
    const { due, defer } = handDefer();
    let runs = 0;
    const coalescer = createRefreshCoalescer(async () => {
      runs += 1;
      throw new Error('offline');
    }, defer);
    coalescer.request();
    due.shift()!();
    await settled();
    coalescer.request();
    expect(due.length).toBe(1);
    due.shift()!();
    await settled();
    expect(runs).toBe(2);
  });
});

/** A page listening for results with `api`'s tools, its quiet windows and holds run by hand. */
function listenForResults(api: { listTools(): Promise<{ name: string; readOnly: boolean }[]> }) {
  const page = new EventTarget();
  let refreshes = 0;
  const { due: scheduled, defer } = handDefer();
  const { due: holds, defer: hold } = handDefer();
  refreshAfterToolResults(
    api,
    page,
    async () => {
      refreshes += 1;
    },
    defer,
    hold,
  );
  return { page, scheduled, holds, refreshes: () => refreshes };
}

describe('refreshAfterToolResults', () => {
  test('results bubbling from the chat view refresh for file-changing tools only', async () => {
    let listed: (tools: { name: string; readOnly: boolean }[]) => void = () => {};
    const api = { listTools: () => new Promise<{ name: string; readOnly: boolean }[]>((r) => (listed = r)) };
    const { page, scheduled, refreshes } = listenForResults(api);
    announceToolResult(page, 'read_file');
    expect(scheduled.length).toBe(1);
    scheduled.shift()!();
    await settled();
    listed([
      { name: 'read_file', readOnly: true },
      { name: 'write_file', readOnly: false },
    ]);
    await settled();
    announceToolResult(page, 'read_file');
    expect(scheduled.length).toBe(0);
    announceToolResult(page, 'write_file');
    announceToolResult(page, 'mcp_server__anything');
    expect(scheduled.length).toBe(1);
    scheduled.shift()!();
    await settled();
    expect(refreshes()).toBe(2);
  });

  test("a response's results are one refresh, given by its last result, or by the hold at most", async () => {
    const api = {
      listTools: async () => [
        { name: 'read_file', readOnly: true },
        { name: 'write_file', readOnly: false },
      ],
    };
    const { page, scheduled, holds, refreshes } = listenForResults(api);
    await settled();
    // Four writes of one response, the results arriving one by one, however far apart.
    announceToolResult(page, 'write_file', 3);
    announceToolResult(page, 'write_file', 2);
    announceToolResult(page, 'write_file', 1);
    expect([scheduled.length, holds.length]).toEqual([0, 3]);
    announceToolResult(page, 'write_file', 0);
    expect(scheduled.length).toBe(1);
    // The holds of the earlier results come after the refresh was given: they add none.
    for (const run of holds.splice(0)) run();
    expect(scheduled.length).toBe(1);
    scheduled.shift()!();
    await settled();
    expect(refreshes()).toBe(1);

    // A slow sibling: the hold gives the refresh, and its own result gives the next.
    announceToolResult(page, 'write_file', 1);
    expect([scheduled.length, holds.length]).toEqual([0, 1]);
    holds.shift()!();
    expect(scheduled.length).toBe(1);
    scheduled.shift()!();
    await settled();
    announceToolResult(page, 'read_file', 0);
    expect(scheduled.length).toBe(0);
    announceToolResult(page, 'write_file', 0);
    expect(scheduled.length).toBe(1);
    scheduled.shift()!();
    await settled();
    expect(refreshes()).toBe(3);
  });
});
