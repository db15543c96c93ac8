import { describe, expect, test } from 'bun:test';
import type { McpConnection } from '../../src/mcp-client/mcp-connection.ts';
import { McpConnectionPool } from '../../src/mcp-client/mcp-connection-pool.ts';
import { ToolError } from '../../src/tools/errors.ts';
import { nextTurn } from '../helpers/wait-until.ts';

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
      // Still opening when the second caller arrives.
      await nextTurn();
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
    const pool = new McpConnectionPool({ maxPerUser: 2, roomWaitMs: 0, now: () => now });
    const a = fake();
    const b = fake();
    await pool.acquire('a', 'u', async () => a);
    pool.touch('a'); // each use ends with a touch; an acquired connection not yet touched is in use
    now = 1;
    await pool.acquire('b', 'u', async () => b);
    pool.touch('b');
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
});

/** A clock and timers the test moves by hand: `advance` fires every timer that falls due, in order. */
function virtualTime() {
  let now = 0;
  let nextId = 0;
  const pending = new Map<number, { at: number; callback: () => void; milliseconds: number }>();
  const timers = {
    setTimeout: (callback: () => void, milliseconds: number) => {
      nextId += 1;
      pending.set(nextId, { at: now + milliseconds, callback, milliseconds });
      return nextId;
    },
    clearTimeout: (handle: unknown) => {
      pending.delete(handle as number);
    },
  };
  const advance = (milliseconds: number) => {
    const until = now + milliseconds;
    for (;;) {
      const due = [...pending].filter(([, timer]) => timer.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      pending.delete(due[0]);
      now = due[1].at;
      due[1].callback();
    }
    now = until;
  };
  return { now: () => now, timers, advance, pending: () => [...pending.values()] };
}

describe('McpConnectionPool on an injected clock and timers', () => {
  test('the backoff doubles per consecutive failure up to 60 s, and a success starts it over at 1 s', async () => {
    const time = virtualTime();
    const pool = new McpConnectionPool({ now: time.now, timers: time.timers });
    let attempts = 0;
    const failing = async (): Promise<McpConnection> => {
      attempts += 1;
      throw new ToolError('execution_error', `attempt ${attempts} failed`);
    };
    await expect(pool.acquire('k', 'u', failing)).rejects.toThrow('attempt 1 failed');
    const waits = [1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000];
    for (const [index, wait] of waits.entries()) {
      const failure = index + 1;
      // Until the last millisecond of the wait, callers get the last failure without a new attempt.
      time.advance(wait - 1);
      await expect(pool.acquire('k', 'u', failing)).rejects.toThrow(`attempt ${failure} failed`);
      expect(attempts).toBe(failure);
      time.advance(1);
      await expect(pool.acquire('k', 'u', failing)).rejects.toThrow(`attempt ${failure + 1} failed`);
    }
    expect(attempts).toBe(9);
    // A success resets the count: the next failure waits 1 s again.
    time.advance(60_000);
    const connection = fake();
    expect(await pool.acquire('k', 'u', async () => connection)).toBe(connection);
    (connection as unknown as FakeConnection).closed = true;
    await expect(pool.acquire('k', 'u', failing)).rejects.toThrow('attempt 10 failed');
    time.advance(999);
    await expect(pool.acquire('k', 'u', failing)).rejects.toThrow('attempt 10 failed');
    time.advance(1);
    await expect(pool.acquire('k', 'u', failing)).rejects.toThrow('attempt 11 failed');
    await pool.close();
  });

  test('the idle stop: armed at open, restarted by each use, re-armed while a call runs', async () => {
    const time = virtualTime();
    const pool = new McpConnectionPool({ idleMs: 300_000, now: time.now, timers: time.timers });
    const first = fake();
    await pool.acquire('k', 'u', async () => first);
    expect(time.pending().map((timer) => timer.milliseconds)).toEqual([300_000]);
    time.advance(299_999);
    expect(first.closes).toBe(0);
    pool.touch('k'); // a call ended: the five minutes start over
    time.advance(299_999);
    expect(first.closes).toBe(0);
    first.inFlight = 1;
    time.advance(1);
    // A call still running: not stopped, looked at again after another idle period.
    expect(first.closes).toBe(0);
    expect(time.pending().map((timer) => timer.milliseconds)).toEqual([300_000]);
    first.inFlight = 0;
    time.advance(300_000);
    expect(first.closes).toBe(1);
    expect(pool.peek('k')).toBeUndefined();
    expect(pool.liveCount('u')).toBe(0);
    expect(time.pending()).toEqual([]);
    // The next use opens a new connection.
    const second = fake();
    expect(await pool.acquire('k', 'u', async () => second)).toBe(second);
    await pool.close();
    expect(time.pending()).toEqual([]);
    expect(second.closes).toBe(1);
  });

  test('the cap counts connections still opening but not closed ones; an evicted one leaves no timer', async () => {
    const time = virtualTime();
    const pool = new McpConnectionPool({ maxPerUser: 2, idleMs: 1000, now: time.now, timers: time.timers });
    const a = fake();
    await pool.acquire('a', 'u', async () => a);
    pool.touch('a');
    time.advance(10);
    let finishOpening: (connection: McpConnection) => void = () => {};
    const b = fake();
    const opening = pool.acquire(
      'b',
      'u',
      () => new Promise<McpConnection>((resolve) => (finishOpening = resolve)),
    );
    await nextTurn();
    expect(pool.liveCount('u')).toBe(2);
    time.advance(10);
    // Full: the idle `a` makes room; the opening `b` cannot be closed, so it stays.
    const c = fake();
    await pool.acquire('c', 'u', async () => c);
    expect(a.closes).toBe(1);
    finishOpening(b);
    expect(await opening).toBe(b);
    expect(b.closes).toBe(0);
    expect(time.pending()).toHaveLength(2); // b's and c's idle timers; a's was cleared
    // A connection that closed by itself (its program exited) no longer counts.
    c.closed = true;
    expect(pool.liveCount('u')).toBe(1);
    const d = fake();
    await pool.acquire('d', 'u', async () => d);
    expect(b.closes).toBe(0);
    expect(pool.liveCount('u')).toBe(2);
    await pool.close();
  });

  test('past the cap with none idle, a new connection waits for one to become idle, at most roomWaitMs', async () => {
    const time = virtualTime();
    const pool = new McpConnectionPool({
      maxPerUser: 2,
      roomWaitMs: 15_000,
      idleMs: 300_000,
      now: time.now,
      timers: time.timers,
    });
    let finishOpening: (connection: McpConnection) => void = () => {};
    const a = fake();
    // `a` still opening (a slow handshake) and `b` in a call: neither can be closed for room.
    const openingA = pool.acquire(
      'a',
      'u',
      () => new Promise<McpConnection>((resolve) => (finishOpening = resolve)),
    );
    const b = fake();
    await pool.acquire('b', 'u', async () => b);
    b.inFlight = 1;
    let cOpened = false;
    const c = fake();
    const acquiringC = pool.acquire('c', 'u', async () => {
      cOpened = true;
      return c;
    });
    await nextTurn();
    expect(cOpened).toBe(false);
    // `a` finishes opening; its caller still uses it (lists its tools), so `c` waits on…
    finishOpening(a);
    expect(await openingA).toBe(a);
    await nextTurn();
    expect(cOpened).toBe(false);
    expect(a.closes).toBe(0);
    // …until that use ends: then `a` is the one closed for `c`, and `b` keeps its call.
    pool.touch('a');
    expect(await acquiringC).toBe(c);
    expect(a.closes).toBe(1);
    expect(b.closes).toBe(0);
    // Every connection busy now: `d` waits the whole 15 s, then is refused with the reason.
    c.inFlight = 1;
    // (Not `expect(...).rejects` here: it would wait for the promise before the clock is moved.)
    let outcome = 'pending';
    void pool
      .acquire('d', 'u', async () => fake())
      .then(
        () => (outcome = 'opened'),
        (error: Error) => (outcome = error.message),
      );
    await nextTurn();
    time.advance(14_999);
    await nextTurn();
    expect(outcome).toBe('pending');
    time.advance(1);
    await nextTurn();
    expect(outcome).toBe(
      'This user already has 2 external MCP server connections busy; try again when a call has finished.',
    );
    // A call that ends (touch) makes room for a waiting one before the bound.
    const e = fake();
    const acquiringE = pool.acquire('e', 'u', async () => e);
    await nextTurn();
    time.advance(5000);
    b.inFlight = 0;
    pool.touch('b');
    expect(await acquiringE).toBe(e);
    expect(b.closes).toBe(1);
    await pool.close();
  });
});
