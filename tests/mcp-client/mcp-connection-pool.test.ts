import { describe, expect, test } from 'bun:test';
import type { McpConnection } from '../../src/mcp-client/mcp-connection.ts';
import { McpConnectionPool } from '../../src/mcp-client/mcp-connection-pool.ts';
import { ToolError } from '../../src/tools/errors.ts';

class FakeConnection {
  closed = false;
  inFlight = 0;
  closes = 0;
  async close(): Promise<void> {
    this.closes += 1;
    this.closed = true;
  }
}

function fake(): FakeConnection & McpConnection {
  return new FakeConnection() as unknown as FakeConnection & McpConnection;
}

describe('McpConnectionPool', () => {
  test('callers at once share one attempt, and an open connection is reused', async () => {
    const pool = new McpConnectionPool();
    let opened = 0;
    const open = async () => {
      opened += 1;
      await Bun.sleep(5);
      return fake();
    };
    const [first, second] = await Promise.all([pool.acquire('k', 'u', open), pool.acquire('k', 'u', open)]);
    expect(first).toBe(second);
    expect(await pool.acquire('k', 'u', open)).toBe(first);
    expect(opened).toBe(1);
    (first as unknown as FakeConnection).closed = true;
    expect(await pool.acquire('k', 'u', open)).not.toBe(first);
    expect(opened).toBe(2);
  });

  test('after a failure the key backs off 1 s, then 2 s, answering with the last failure at once', async () => {
    let now = 0;
    const pool = new McpConnectionPool({ now: () => now });
    let attempts = 0;
    const failing = async (): Promise<McpConnection> => {
      attempts += 1;
      throw new ToolError('execution_error', `attempt ${attempts} failed`);
    };
    await expect(pool.acquire('k', 'u', failing)).rejects.toThrow('attempt 1 failed');
    now = 999;
    await expect(pool.acquire('k', 'u', failing)).rejects.toThrow('attempt 1 failed');
    expect(attempts).toBe(1);
    now = 1000;
    await expect(pool.acquire('k', 'u', failing)).rejects.toThrow('attempt 2 failed');
    now = 2999;
    await expect(pool.acquire('k', 'u', failing)).rejects.toThrow('attempt 2 failed');
    now = 3000;
    const connection = fake();
    expect(await pool.acquire('k', 'u', async () => connection)).toBe(connection);
  });

  test('a user past the cap loses their least recently used idle connection; busy ones are kept', async () => {
    let now = 0;
    const pool = new McpConnectionPool({ maxPerUser: 2, now: () => now });
    const a = fake();
    const b = fake();
    await pool.acquire('a', 'u', async () => a);
    now = 1;
    await pool.acquire('b', 'u', async () => b);
    await pool.acquire('other-user', 'v', async () => fake());
    now = 2;
    await pool.acquire('c', 'u', async () => fake());
    expect(a.closes).toBe(1);
    expect(b.closes).toBe(0);
    expect(pool.liveCount('u')).toBe(2);
    expect(pool.liveCount('v')).toBe(1);
    // Every connection busy: the next one is refused with the reason.
    for (const key of ['b', 'c']) (pool.peek(key) as unknown as FakeConnection).inFlight = 1;
    await expect(pool.acquire('d', 'u', async () => fake())).rejects.toThrow(
      'This user already has 2 external MCP server connections busy',
    );
    await pool.close();
  });

  test('an idle connection is closed after idleMs; a busy one waits for its call', async () => {
    const pool = new McpConnectionPool({ idleMs: 30 });
    const idle = fake();
    const busy = fake();
    await pool.acquire('idle', 'u', async () => idle);
    await pool.acquire('busy', 'u', async () => busy);
    busy.inFlight = 1;
    await Bun.sleep(200);
    expect(idle.closes).toBe(1);
    expect(busy.closes).toBe(0);
    busy.inFlight = 0;
    pool.touch('busy');
    await Bun.sleep(200);
    expect(busy.closes).toBe(1);
    expect(pool.peek('busy')).toBeUndefined();
  });
});
