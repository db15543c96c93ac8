/**
 * The runner of one process, and two of them on one in-memory store standing for two instances, their
 * timers moved by hand: one turn per chat; a lapsed lease taken over and the paused holder fenced out;
 * the acknowledgement refused when the fence fails; cancels here, elsewhere (confirmed, or not within
 * the window), and of a turn whose instance is gone; an abandoned turn reported lost; drain bounded.
 */
import { describe, expect, test } from 'bun:test';
import { ChatError } from '../../src/chat/chat-errors.ts';
import type { InMemoryChatRepository } from '../../src/chat/in-memory-chat-repository.ts';
import { type BackgroundTurn, LOST_LEASE_MESSAGE } from '../../src/turns/background-turn.ts';
import { NOT_STARTED_MESSAGE, TurnCoordinator } from '../../src/turns/turn-coordinator.ts';
import { TurnFencedError } from '../../src/turns/turn-fence.ts';
import { LOST_TURN_MESSAGE } from '../../src/turns/turn-follower.ts';
import type { TurnRepository } from '../../src/turns/turn-repository.ts';
import { type ManualClock, manualClock, settle } from '../helpers/manual-clock.ts';
import {
  collect,
  eventChannel,
  faultyStore,
  LEASE,
  repositoryWithChat,
  TIMING,
} from '../helpers/turn-lifecycle.ts';

function runner(store: TurnRepository, clock: ManualClock, now: () => number = clock.now) {
  const lines: string[] = [];
  const instance = new TurnCoordinator({
    store,
    timing: TIMING,
    now,
    log: (line) => lines.push(line),
    timers: clock.timers,
  });
  return { instance, lines };
}

const presenceOf = (repository: InMemoryChatRepository) => ({
  exists: async () => (await repository.getChat('chat')) !== undefined,
  notFound: () => new ChatError('not_found', 'No chat with id chat.'),
});

/** A turn whose events the test sends; it ends `cancelled` as soon as its run is aborted. */
function cancellableTurn() {
  const channel = eventChannel();
  let run: BackgroundTurn | undefined;
  const prepare = async (started: BackgroundTurn) => {
    run = started;
    started.controller.signal.addEventListener('abort', () => {
      channel.send({ type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' });
      channel.close();
    });
    return channel.events;
  };
  return { channel, prepare, run: () => run! };
}

async function setUp() {
  const clock = manualClock();
  const repository = await repositoryWithChat(clock.now());
  return { clock, repository, presence: presenceOf(repository) };
}

describe('starting', () => {
  test('claims the chat, runs the turn in the background and frees the chat once its end is recorded', async () => {
    const { clock, repository, presence } = await setUp();
    const { instance } = runner(repository.turns, clock);
    const turn = cancellableTurn();
    const follower = await instance.start('chat', turn.prepare, presence);
    expect(instance.isRunning('chat')).toBe(true);
    expect((await repository.turns.latestTurn('chat'))?.state).toBe('running');
    turn.channel.send({ type: 'text_delta', delta: 'Hi' }, { type: 'done', reason: 'completed' });
    turn.channel.close();
    expect(await collect(follower)).toEqual([
      { type: 'text_delta', delta: 'Hi' },
      { type: 'done', reason: 'completed' },
    ]);
    expect(instance.isRunning('chat')).toBe(false);
    expect((await repository.turns.latestTurn('chat'))?.state).toBe('completed');
  });

  test('one turn per chat: busy here and busy on another instance while its lease holds', async () => {
    const { clock, repository, presence } = await setUp();
    const here = runner(repository.turns, clock).instance;
    const there = runner(repository.turns, clock).instance;
    await here.start('chat', cancellableTurn().prepare, presence);
    const busy = (promise: Promise<unknown>) =>
      promise.then(
        () => 'started',
        (error: unknown) => (error instanceof ChatError ? error.code : String(error)),
      );
    expect(await busy(here.start('chat', cancellableTurn().prepare, presence))).toBe('busy');
    expect(await busy(there.start('chat', cancellableTurn().prepare, presence))).toBe('busy');
    expect((await repository.turns.listTurns('chat')).length).toBe(1);
  });

  test('a message refused by the fence is turn_not_started, and the claimed record ends as an error', async () => {
    const { clock, repository, presence } = await setUp();
    const { instance } = runner(repository.turns, clock);
    const failure = instance.start(
      'chat',
      async () => {
        throw new TurnFencedError();
      },
      presence,
    );
    await expect(failure).rejects.toMatchObject({ code: 'turn_not_started', message: NOT_STARTED_MESSAGE });
    expect(await repository.turns.latestTurn('chat')).toMatchObject({
      state: 'error',
      error: {
        message:
          'The turn could not start: TurnFencedError: This turn no longer holds the chat: its lease expired or another turn replaced it.',
      },
    });
    expect(instance.isRunning('chat')).toBe(false);
  });

  test('a chat deleted while its message was committed is not_found, not turn_not_started', async () => {
    const { clock, repository, presence } = await setUp();
    const { instance } = runner(repository.turns, clock);
    const failure = instance.start(
      'chat',
      async () => {
        await repository.deleteChat('chat');
        throw new TurnFencedError();
      },
      presence,
    );
    await expect(failure).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('taking over, and the paused holder fenced out', () => {
  test('a lapsed lease is taken over; the paused instance, resumed, writes nothing and ends done{error}', async () => {
    const { repository, presence } = await setUp();
    // Two instances, one wall clock; the first one's timers stop while it is paused.
    const running = manualClock();
    const paused = manualClock();
    const wall = () => running.now();
    const first = runner(repository.turns, paused, wall).instance;
    const second = runner(repository.turns, running, wall).instance;
    const turn = cancellableTurn();
    const follower = await first.start('chat', turn.prepare, presence);
    turn.channel.send({ type: 'text_delta', delta: 'before' });
    await settle();

    await running.advance(LEASE - 1);
    const busy = await second.start('chat', cancellableTurn().prepare, presence).catch((error) => error);
    expect(busy).toMatchObject({ code: 'busy' });
    await running.advance(2);
    const next = cancellableTurn();
    await second.start('chat', next.prepare, presence);
    const turns = await repository.turns.listTurns('chat');
    expect(turns.map((record) => [record.fencingToken, record.state])).toEqual([
      [1, 'lost'],
      [2, 'running'],
    ]);

    // SIGCONT: its first tick comes late, so it knows it was paused.
    paused.jump(LEASE + 1);
    await expect(turn.run().saveItem({ type: 'assistant_text', text: 'late' })).rejects.toThrow(
      LOST_LEASE_MESSAGE,
    );
    await paused.advance(0);
    turn.channel.send({ type: 'text_delta', delta: 'after' });
    expect(await collect(follower)).toEqual([
      { type: 'text_delta', delta: 'before' },
      { type: 'done', reason: 'error', message: LOST_LEASE_MESSAGE },
    ]);
    expect(await repository.listMessages('chat')).toEqual([]);
    expect((await repository.turns.listTurnEvents(next.run().record.id, 0, 10)).length).toBe(0);
    expect((await repository.turns.latestTurn('chat'))?.state).toBe('running');
  });
});

describe('cancel', () => {
  test('here: the run is aborted at once', async () => {
    const { clock, repository, presence } = await setUp();
    const { instance } = runner(repository.turns, clock);
    const follower = await instance.start('chat', cancellableTurn().prepare, presence);
    expect(await instance.cancel('chat')).toEqual({ cancelled: true });
    expect((await collect(follower)).at(-1)).toEqual({
      type: 'done',
      reason: 'cancelled',
      message: 'The turn was cancelled.',
    });
    expect((await repository.turns.latestTurn('chat'))?.state).toBe('cancelled');
  });

  test('elsewhere: recorded, seen by the holder at its next poll, confirmed once the turn ended', async () => {
    const { clock, repository, presence } = await setUp();
    const holder = runner(repository.turns, clock).instance;
    const other = runner(repository.turns, clock).instance;
    await holder.start('chat', cancellableTurn().prepare, presence);
    const outcome = other.cancel('chat');
    await clock.advance(TIMING.cancelPollMilliseconds - 1);
    expect((await repository.turns.latestTurn('chat'))?.state).toBe('running');
    await clock.advance(TIMING.cancelPollMilliseconds / 2 + 1);
    expect(await outcome).toEqual({ cancelled: true });
    expect((await repository.turns.latestTurn('chat'))?.state).toBe('cancelled');
  });

  test('elsewhere, unconfirmed: a holder that does not stop it within the window is reported', async () => {
    const { clock, repository, presence } = await setUp();
    const stopped = manualClock(); // the holder's timers never run
    const holder = runner(repository.turns, stopped, clock.now).instance;
    const other = runner(repository.turns, clock).instance;
    await holder.start('chat', cancellableTurn().prepare, presence);
    let answered = false;
    const outcome = other.cancel('chat').finally(() => (answered = true));
    await clock.advance(LEASE - TIMING.cancelPollMilliseconds / 2);
    expect(answered).toBe(false);
    await clock.advance(TIMING.cancelPollMilliseconds / 2);
    expect(await outcome).toEqual({
      cancelled: false,
      reason: 'The cancel was recorded, but the instance running the turn has not stopped it yet.',
    });
  });

  test('of a turn whose instance is gone: nothing was running, and the chat is free again', async () => {
    const { clock, repository, presence } = await setUp();
    const gone = manualClock();
    await runner(repository.turns, gone, clock.now).instance.start(
      'chat',
      cancellableTurn().prepare,
      presence,
    );
    await clock.advance(LEASE + 1);
    const other = runner(repository.turns, clock).instance;
    expect(await other.cancel('chat')).toEqual({
      cancelled: false,
      reason:
        'The instance that ran the turn is gone (it stopped renewing its lease); nothing was running, and the chat is free again.',
    });
    expect(await repository.turns.latestTurn('chat')).toMatchObject({
      state: 'lost',
      error: { message: LOST_TURN_MESSAGE },
    });
    expect(await other.cancel('chat')).toEqual({
      cancelled: false,
      reason: 'No turn is running in this chat.',
    });
  });
});

describe('current, and drain', () => {
  test('a running record whose lease lapsed is reported, and marked, lost', async () => {
    const { clock, repository, presence } = await setUp();
    await runner(repository.turns, manualClock(), clock.now).instance.start(
      'chat',
      cancellableTurn().prepare,
      presence,
    );
    const other = runner(repository.turns, clock).instance;
    expect((await other.current('chat'))?.state).toBe('running');
    await clock.advance(LEASE + 1);
    expect(await other.current('chat')).toMatchObject({
      state: 'lost',
      error: { message: LOST_TURN_MESSAGE },
    });
  });

  test('drain waits for the turns to record their end at most its timeout, then stops their retries', async () => {
    const { clock, repository, presence } = await setUp();
    const faults = faultyStore(repository.turns);
    const { instance } = runner(faults.store, clock);
    const turn = cancellableTurn();
    await instance.start('chat', turn.prepare, presence);
    faults.cut('finishTurn');
    expect(instance.cancelAll()).toBe(1);
    let drained = false;
    const draining = instance.drain(1_000).then(() => (drained = true));
    await clock.advance(999);
    expect(drained).toBe(false);
    await clock.advance(1);
    await draining;
    const attempts = faults.callsOf('finishTurn').length;
    await clock.advance(10_000);
    await turn.run().ended;
    expect(faults.callsOf('finishTurn').length).toBe(attempts + 1);
    expect(clock.pendingCount()).toBe(0);
  });
});
