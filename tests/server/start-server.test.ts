/**
 * `startServer` on a real port: 50 concurrent PUTs of one user end in exactly one of the writes, and
 * `stop()` lets an in-flight request finish while refusing new connections.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { type RunningServer, startServer } from '../../src/server/start-server.ts';
import { createTestRegistry } from '../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

describe.each(BACKENDS)('startServer on %s', (backend) => {
  let handle: TestDatabase | undefined;
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.stop();
    await handle?.dispose();
    server = undefined;
    handle = undefined;
  });

  async function start(shutdownTimeoutMs = 5_000): Promise<{ server: RunningServer; token: string }> {
    handle = await createTestDatabase(backend, { migrate: false });
    const printed: string[] = [];
    server = await startServer(
      { ...handle.config, shutdownTimeoutMs },
      {
        print: (line) => printed.push(line),
        registry: createTestRegistry(),
      },
    );
    const token = /mango_\S+/.exec(printed.join('\n'))?.[0];
    expect(token).toBeDefined();
    return { server, token: token! };
  }

  test('listens on 127.0.0.1 and creates the first user once', async () => {
    const { server: running, token } = await start();
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await running.deps.users.list()).toEqual([expect.objectContaining({ name: 'admin' })]);
    const response = await fetch(`${running.url}/api/settings/tools`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
  });

  test('50 concurrent PUTs for one user: the final state equals one of the writes', async () => {
    const { server: running, token } = await start();
    const bodyFor = (index: number) => ({
      enabled: index % 2 === 0,
      parameters: {
        timeoutSeconds: 10 + index,
        label: `writer-${index}`,
        ratio: index / 100,
        names: [`n${index}`],
      },
    });
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        fetch(`${running.url}/api/settings/tools/tunable`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(bodyFor(index)),
        }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(200));
    const listed = (await (
      await fetch(`${running.url}/api/settings/tools`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { tools: { name: string; enabled: boolean; parameters: Record<string, unknown> }[] };
    const final = listed.tools.find((tool) => tool.name === 'tunable')!;
    const winner = Number((final.parameters.label as string).replace('writer-', ''));
    const expected = bodyFor(winner);
    expect(final.enabled).toBe(expected.enabled);
    expect(final.parameters).toMatchObject(expected.parameters);
  });

  test('stop() finishes an in-flight request, then refuses connections and closes the database', async () => {
    const { server: running, token } = await start();
    let release!: () => void;
    let entered!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const list = running.deps.toolSettings.list.bind(running.deps.toolSettings);
    running.deps.toolSettings.list = async (userId) => {
      entered();
      await gate;
      return list(userId);
    };
    const inFlight = fetch(`${running.url}/api/settings/tools`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await inHandler;
    const stopped = running.stop();
    release();
    expect((await inFlight).status).toBe(200);
    await stopped;
    await expect(fetch(`${running.url}/api/settings/tools`)).rejects.toThrow();
    server = undefined;
  });

  test('stop() is bounded: a request that never finishes is cut after shutdownTimeoutMs', async () => {
    const { server: running, token } = await start(200);
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    running.deps.toolSettings.list = () => {
      entered();
      return new Promise(() => {});
    };
    const hanging = fetch(`${running.url}/api/settings/tools`, {
      headers: { authorization: `Bearer ${token}` },
    }).then(
      () => 'answered',
      () => 'cut',
    );
    await inHandler;
    await running.stop();
    expect(await hanging).toBe('cut');
    server = undefined;
  });
});
