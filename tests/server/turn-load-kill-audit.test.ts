/**
 * The load-and-kill audit (docs/turns.md, "What an acknowledged turn keeps"): three real `mango serve`
 * processes on one PostgreSQL database, users each running turns with a tool call in their own chat
 * spread over the instances, and one instance killed (`kill -9`) under that load, right after it
 * answered 200 to a turn (the moment an acknowledged message used to be lost). Then, read from the
 * database, exactly:
 * - every user message whose turn was acknowledged (200) is stored once;
 * - every turn reported `done{completed}` has its answer stored once, after its message;
 * - nothing is stored twice (user messages, answers, tool calls and results);
 * - every chat cut by the kill accepted its next turn within the lease;
 * - no turn is left running.
 * The shape and the figures are printed for the report.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { openDatabase } from '../../src/db/database.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { chatApi } from '../helpers/chat-api-client.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { readSseEvents } from '../helpers/sse-client.ts';
import { createPostgresDatabase } from '../helpers/test-database.ts';
import {
  answerFor,
  callIdFor,
  startToolCallingModelServer,
  type ToolCallingModelServer,
} from '../helpers/tool-calling-model-server.ts';
import { waitUntil } from '../helpers/wait-until.ts';

const INSTANCES = 3;
const USERS = 30;
const TURNS_PER_USER = 5;
const LEASE_MS = 5_000;
/** How long a turn may go unacknowledged (its chat busy, its instance killed) before the test fails. */
const ACKNOWLEDGED_WITHIN_MS = 6 * LEASE_MS;
/** The instance killed, once this share of all turns was acknowledged. */
const KILLED = 0;
const KILL_AFTER_SHARE = 0.3;

let model: ToolCallingModelServer;
let root: string;
let postgres: { url: string; drop: () => Promise<void> };
const servers: ServerProcess[] = [];

function startInstance(): Promise<ServerProcess> {
  return startServerProcess({
    MANGO_DATA_DIR: join(root, 'data'), // shared, as instances of one database must
    MANGO_WORKSPACES_DIR: join(root, 'workspaces'),
    DATABASE_URL: postgres.url,
    MANGO_TURN_LEASE_MS: String(LEASE_MS),
    OPENAI_COMPATIBLE_BASE_URL: `${model.baseUrl}/v1`,
  });
}

beforeAll(async () => {
  model = startToolCallingModelServer({ latency: { seed: 36, ms: [20, 120] } });
  root = await realpath(await mkdtemp(join(tmpdir(), 'mango-load-kill-')));
  postgres = await createPostgresDatabase();
  // The first one migrates the database; the others start on it together.
  servers.push(await startInstance());
  const others = Array.from({ length: INSTANCES - 1 }, () => startInstance());
  servers.push(...(await Promise.all(others)));
  // Three processes starting on a loaded 2-core machine take longer than the default hook timeout.
}, 60_000);

afterAll(async () => {
  for (const server of servers) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  await model.close();
  await postgres.drop();
  await rm(root, { recursive: true, force: true });
}, 30_000);

/** One POST of a turn, as its client saw it. */
interface Attempt {
  user: number;
  chatId: string;
  text: string;
  instance: number;
  /** The response's status, or `refused` when the connection failed. */
  status: number | 'refused';
  /** 200: the stream started. */
  acknowledged: boolean;
  /** `done{completed}` arrived. */
  completed: boolean;
  /** Acknowledged, then the stream broke off before `done`. */
  cut: boolean;
}

/** What each cut chat's client measured: from the cut to the next turn's 200. */
interface Recovery {
  chatId: string;
  usableAfterMs: number | undefined;
}

test(`load and kill -9: ${INSTANCES} instances, ${USERS} users × ${TURNS_PER_USER} turns with a tool call`, async () => {
  const startedAt = performance.now();
  const database = await openDatabase({ dataDirectory: root, databaseUrl: postgres.url, maxConnections: 2 });
  const users = new DatabaseUserRepository(database, Date.now);
  const tokens: string[] = [];
  for (let user = 0; user < USERS; user++) tokens.push((await users.create(`load-${user}`)).token);
  await database.close();

  const alive = new Set(servers.map((_server, index) => index));
  const attempts: Attempt[] = [];
  const recoveries: Recovery[] = [];
  let acknowledgedCount = 0;
  let killedAt: number | undefined;
  let inFlightOnKilled = 0;

  const killIfDue = (instance: number) => {
    if (instance !== KILLED || killedAt !== undefined) return;
    if (acknowledgedCount < USERS * TURNS_PER_USER * KILL_AFTER_SHARE) return;
    servers[KILLED]!.child.kill('SIGKILL');
    killedAt = performance.now();
    alive.delete(KILLED);
    inFlightOnKilled = attempts.filter(
      (attempt) => attempt.instance === KILLED && attempt.acknowledged && !attempt.completed && !attempt.cut,
    ).length;
  };

  /** Sends one turn; never throws (a refused or reset connection is an unacknowledged attempt). */
  async function attempt(user: number, chatId: string, text: string, instance: number): Promise<Attempt> {
    const record: Attempt = {
      user,
      chatId,
      text,
      instance,
      status: 'refused',
      acknowledged: false,
      completed: false,
      cut: false,
    };
    attempts.push(record);
    let response: Response;
    try {
      response = await chatApi(servers[instance]!.url, tokens[user]!).call(
        'POST',
        `/api/chats/${chatId}/turns`,
        {
          message: text,
        },
      );
    } catch {
      return record;
    }
    record.status = response.status;
    if (response.status !== 200) {
      await response.body?.cancel();
      return record;
    }
    record.acknowledged = true;
    acknowledgedCount += 1;
    killIfDue(instance);
    try {
      for await (const event of readSseEvents(response)) {
        if (event.type === 'done') {
          record.completed = event.reason === 'completed';
          return record;
        }
      }
      record.cut = true;
    } catch {
      record.cut = true;
    }
    return record;
  }

  async function runUser(user: number): Promise<void> {
    let instance = user % INSTANCES;
    const chatId = await chatApi(servers[instance]!.url, tokens[user]!).createChat();
    let cutAt: number | undefined;
    let recovery: Recovery | undefined;
    // A chat cut on its last turn runs one more, to show it is usable again.
    for (let turn = 0; turn < TURNS_PER_USER || cutAt !== undefined; turn++) {
      // A new text per attempt: an unacknowledged one may or may not be stored, and must not be
      // mistaken for a duplicate of its retry. Retried at waitUntil's pace while the chat is busy or
      // its instance gone, rather than hammering it.
      let retry = 0;
      const acknowledged = await waitUntil(async () => {
        if (!alive.has(instance)) instance = [...alive][user % alive.size]!;
        const sent = await attempt(user, chatId, `user ${user} turn ${turn} attempt ${retry++}`, instance);
        if (!sent.acknowledged) return false;
        if (cutAt !== undefined) {
          recovery!.usableAfterMs = performance.now() - cutAt;
          cutAt = undefined;
        }
        if (sent.cut) {
          cutAt = performance.now();
          recovery = { chatId, usableAfterMs: undefined };
          recoveries.push(recovery);
        }
        return true;
      }, ACKNOWLEDGED_WITHIN_MS);
      if (!acknowledged) throw new Error(`user ${user}: turn ${turn} was never acknowledged`);
    }
  }

  await Promise.all(Array.from({ length: USERS }, (_unused, user) => runUser(user)));
  const loadSeconds = (performance.now() - startedAt) / 1000;

  const sql = new SQL(postgres.url, { max: 1 });
  const messages: { chat_id: string; seq: number; content_json: string }[] =
    await sql`SELECT chat_id, seq, content_json FROM messages ORDER BY chat_id, seq`;
  const running: { id: string }[] = await sql`SELECT id FROM chat_turns WHERE state = 'running'`;
  await sql.close();

  const stored = messages.map((row) => ({
    chatId: row.chat_id,
    seq: Number(row.seq),
    item: JSON.parse(row.content_json) as { type: string; text?: string; callId?: string },
  }));
  const count = (key: string) => stored.filter((row) => keyOf(row) === key).length;
  const keyOf = (row: (typeof stored)[number]) =>
    row.item.type === 'tool_call' || row.item.type === 'tool_result'
      ? `${row.chatId} ${row.item.type} ${row.item.callId}`
      : `${row.item.type} ${row.item.text}`;

  const violations: string[] = [];
  for (const sent of attempts) {
    if (sent.acknowledged && count(`user_text ${sent.text}`) !== 1) {
      violations.push(`acknowledged "${sent.text}" stored ${count(`user_text ${sent.text}`)} times`);
    }
    if (sent.completed) {
      const question = stored.find((row) => row.item.type === 'user_text' && row.item.text === sent.text);
      const answers = stored.filter(
        (row) => row.item.type === 'assistant_text' && row.item.text === answerFor(sent.text),
      );
      if (
        answers.length !== 1 ||
        answers[0]!.chatId !== sent.chatId ||
        answers[0]!.seq < (question?.seq ?? 0)
      ) {
        violations.push(`completed "${sent.text}": its answer stored ${answers.length} times`);
      }
      if (count(`${sent.chatId} tool_result ${callIdFor(sent.text)}`) !== 1) {
        violations.push(`completed "${sent.text}": its tool result is not stored once`);
      }
    }
  }
  for (const key of new Set(stored.map(keyOf))) {
    if (count(key) > 1) violations.push(`stored ${count(key)} times: ${key}`);
  }
  for (const recovery of recoveries) {
    if (recovery.usableAfterMs === undefined || recovery.usableAfterMs >= LEASE_MS) {
      violations.push(`chat ${recovery.chatId} usable again after ${recovery.usableAfterMs} ms`);
    }
  }
  if (running.length > 0) violations.push(`${running.length} turns left running`);

  const acknowledged = attempts.filter((sent) => sent.acknowledged);
  const cut = attempts.filter((sent) => sent.cut);
  const refusals: Record<string, number> = {};
  for (const sent of attempts) {
    if (!sent.acknowledged) refusals[sent.status] = (refusals[sent.status] ?? 0) + 1;
  }
  const usable = recoveries.map((recovery) => recovery.usableAfterMs ?? Number.POSITIVE_INFINITY);
  console.log(
    `[load-kill audit] ${INSTANCES} instances, ${USERS} users × ${TURNS_PER_USER} turns, lease ${LEASE_MS} ms: ` +
      `${attempts.length} attempts, ${acknowledged.length} acknowledged, ` +
      `${attempts.filter((sent) => sent.completed).length} completed, ${cut.length} cut by the kill ` +
      `(${inFlightOnKilled} in flight on the killed instance), ` +
      `${attempts.length - acknowledged.length} not acknowledged and sent again (${JSON.stringify(refusals)}); ` +
      `cut chats usable again after at most ${Math.round(Math.max(0, ...usable))} ms; ` +
      `${stored.length} messages stored; ${model.requests} model calls; ${loadSeconds.toFixed(1)} s; ` +
      `violations ${violations.length}`,
  );
  expect(violations).toEqual([]);
  // The audit proves something only if the kill hit turns under way.
  expect(killedAt).toBeDefined();
  expect(cut.length).toBeGreaterThan(0);
  const extraTurns = new Set(
    acknowledged.filter((sent) => sent.text.includes(`turn ${TURNS_PER_USER} `)).map((sent) => sent.user),
  ).size;
  expect(acknowledged.length).toBe(USERS * TURNS_PER_USER + extraTurns);
}, 120_000);
