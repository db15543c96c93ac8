/**
 * Chat search (`ChatRepository.searchChats`, what `GET /api/chats/search` runs) over 10 000 chats × 20
 * messages of one user, on SQLite (FTS5) and PostgreSQL (GIN-indexed tsvector), next to what one would
 * write without a full-text index: a `LIKE '%word%'` scan of the same user's messages. Words of four
 * frequencies: rare (in 20 messages), medium (~1 %), common (~20 %), and a two-word query; median and
 * p95 of `CHAT_SEARCH_BENCH_ROUNDS` searches each (default 40; the scan runs a quarter as often).
 * Another user's 1 000 chats share the index, as on a real server. The data is written through the
 * real schema and triggers of migration 14, so seeding also shows what indexing costs per message.
 *
 * `CHAT_SEARCH_BENCH_CHATS` (default 10000) and `CHAT_SEARCH_BENCH_MESSAGES` (per chat, default 20)
 * scale it. PostgreSQL is the tests' server (`MANGO_TEST_POSTGRES_URL`, or a cluster this run starts
 * and stops), in a database this run creates and drops.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import type { ChatSearchRequest } from '../src/chat/chat-search.ts';
import { type Database, openDatabase } from '../src/db/database.ts';
import { DatabaseChatRepository } from '../src/db/database-chat-repository.ts';
import { migrate } from '../src/db/migrate.ts';
import { stopTestPostgres, testPostgresUrl } from '../tests/helpers/test-postgres-server.ts';

const CHATS = Number(process.env.CHAT_SEARCH_BENCH_CHATS ?? 10_000);
const MESSAGES = Number(process.env.CHAT_SEARCH_BENCH_MESSAGES ?? 20);
const ROUNDS = Number(process.env.CHAT_SEARCH_BENCH_ROUNDS ?? 40);
const OTHER_CHATS = 1_000;
const BATCH = 500;

/** Deterministic, so every run searches the same text. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const FILLER = Array.from({ length: 5_000 }, (_, index) => `w${index.toString(36)}x`);

/** One message's text: 12 filler words, plus the benchmark's words at their frequencies. */
function messageText(random: () => number, index: number, total: number): string {
  const words = Array.from({ length: 12 }, () => FILLER[Math.floor(random() * FILLER.length)]!);
  if (index % Math.floor(total / 20) === 7) words.push('quokka');
  if (random() < 0.01) words.push('harbor');
  if (random() < 0.2) words.push('status');
  if (random() < 0.05) words.push('deploy');
  return words.join(' ');
}

async function seed(database: Database, userId: string, chats: number, startIndex: number): Promise<number> {
  const { sql } = database;
  const random = createRandom(startIndex + 1);
  const started = performance.now();
  const total = chats * MESSAGES;
  for (let first = 0; first < chats; first += BATCH) {
    const count = Math.min(BATCH, chats - first);
    const at = new Date(Date.UTC(2026, 0, 1) + (startIndex + first) * 1000).toISOString();
    const chatRows = Array.from({ length: count }, (_, offset) => ({
      id: `chat-${startIndex + first + offset}`,
      user_id: userId,
      title: `Chat ${startIndex + first + offset} about ${FILLER[(first + offset) % FILLER.length]}`,
      working_directory: null,
      confined: database.dialect === 'sqlite' ? 1 : true,
      provider: 'openai',
      model: 'm',
      system_prompt: null,
      created_at: at,
      last_activity_at: at,
    }));
    const messageRows = chatRows.flatMap((chat, chatOffset) =>
      Array.from({ length: MESSAGES }, (_, seq) => {
        const user = seq % 2 === 0;
        const text = messageText(random, (first + chatOffset) * MESSAGES + seq, total);
        return {
          id: `${chat.id}-m${seq + 1}`,
          chat_id: chat.id,
          seq: seq + 1,
          role: user ? 'user' : 'assistant',
          content_json: JSON.stringify({ type: user ? 'user_text' : 'assistant_text', text }),
          created_at: at,
        };
      }),
    );
    await sql.begin(async (transaction) => {
      await transaction`INSERT INTO chats ${sql(chatRows)}`;
      for (let from = 0; from < messageRows.length; from += 1_000) {
        await transaction`INSERT INTO messages ${sql(messageRows.slice(from, from + 1_000))}`;
      }
    });
  }
  return performance.now() - started;
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

async function time(
  rounds: number,
  run: () => Promise<number>,
): Promise<{ median: number; p95: number; hits: number }> {
  const samples: number[] = [];
  let hits = 0;
  await run(); // warm-up: the first query also loads pages into the cache
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    hits = await run();
    samples.push(performance.now() - started);
  }
  samples.sort((left, right) => left - right);
  return { median: percentile(samples, 0.5), p95: percentile(samples, 0.95), hits };
}

const QUERIES: { label: string; terms: string[] }[] = [
  { label: 'rare word (quokka)', terms: ['quokka'] },
  { label: 'medium word (harbor, ~1 %)', terms: ['harbor'] },
  { label: 'common word (status, ~20 %)', terms: ['status'] },
  { label: 'two words (status deploy)', terms: ['status', 'deploy'] },
];

async function bench(label: string, database: Database): Promise<Record<string, number>> {
  await migrate(database);
  const { sql } = database;
  for (const [id, name] of [
    ['bench-user', 'bench'],
    ['other-user', 'other'],
  ]) {
    await sql`INSERT INTO users (id, name, created_at) VALUES (${id}, ${name}, '2026-01-01T00:00:00.000Z')`;
  }
  const seedMs = await seed(database, 'bench-user', CHATS, 0);
  await seed(database, 'other-user', OTHER_CHATS, CHATS);
  await sql.unsafe('ANALYZE');
  const perMessageUs = (seedMs * 1000) / (CHATS * MESSAGES);
  console.log(
    `\n${label}: ${CHATS} chats × ${MESSAGES} messages seeded in ${(seedMs / 1000).toFixed(1)} s (${perMessageUs.toFixed(0)} µs per message, triggers and index included)`,
  );
  const repository = new DatabaseChatRepository(database);
  const figures: Record<string, number> = {};
  console.log('| query | chats found | search median | search p95 | LIKE scan median | LIKE scan p95 |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const query of QUERIES) {
    const request: ChatSearchRequest = { terms: query.terms, limit: 20, offset: 0 };
    let found = 0;
    const search = await time(ROUNDS, async () => {
      const page = await repository.searchChats('bench-user', request);
      found = page.hits.length;
      return found;
    });
    const patterns = query.terms.map((term) => `%${term}%`);
    const scan = await time(Math.max(3, Math.floor(ROUNDS / 4)), async () => {
      const like = patterns.map((pattern) => sql`AND m.content_json LIKE ${pattern}`);
      const rows: { chat_id: string }[] = await sql`SELECT DISTINCT m.chat_id FROM messages m
        JOIN chats c ON c.id = m.chat_id WHERE c.user_id = ${'bench-user'} ${like[0]!} ${like[1] ?? sql``}`;
      return rows.length;
    });
    const key = query.terms.join('+');
    figures[`${key}_median_ms`] = search.median;
    figures[`${key}_p95_ms`] = search.p95;
    figures[`${key}_scan_median_ms`] = scan.median;
    console.log(
      `| ${query.label} | ${scan.hits} (page of ${found}) | ${search.median.toFixed(1)} ms | ${search.p95.toFixed(1)} ms | ${scan.median.toFixed(1)} ms | ${scan.p95.toFixed(1)} ms |`,
    );
  }
  return figures;
}

const directory = await mkdtemp(join(tmpdir(), 'mango-bench-search-'));
const results: Record<string, Record<string, number>> = {};
try {
  const sqlite = await openDatabase({ dataDirectory: directory, databaseUrl: undefined });
  results.sqlite = await bench('SQLite (FTS5)', sqlite);
  await sqlite.close();

  const adminUrl = await testPostgresUrl();
  const databaseName = `mango_bench_search_${process.pid}`;
  const admin = new SQL(adminUrl, { max: 1 });
  await admin.unsafe(`CREATE DATABASE ${databaseName}`);
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${databaseName}`;
    const postgres = await openDatabase({
      dataDirectory: directory,
      databaseUrl: url.toString(),
      maxConnections: 2,
    });
    results.postgres = await bench('PostgreSQL (tsvector + GIN)', postgres);
    await postgres.close();
  } finally {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
    await admin.close();
  }
} finally {
  await rm(directory, { recursive: true, force: true });
  await stopTestPostgres();
}
console.log(`\nCHAT_SEARCH_JSON ${JSON.stringify(results)}`);
