import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { extractUserOption } from '../../src/cli/user-settings-source.ts';
import { DatabaseToolSettingsRepository } from '../../src/db/database-tool-settings-repository.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { runCliCaptured } from '../helpers/captured-io.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

describe.each(BACKENDS)('mango user and tool --user on %s', (backend) => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await createTestDatabase(backend, { migrate: false });
  }, 30_000);
  afterAll(() => handle.dispose());

  async function run(argv: string[]) {
    return runCliCaptured(argv, handle.config.dataDirectory, {
      MANGO_DATA_DIR: handle.config.dataDirectory,
      DATABASE_URL: handle.config.databaseUrl,
    });
  }

  test('user add prints the token alone on the last line, and it authenticates', async () => {
    const { code, stdout } = await run(['user', 'add', 'alice']);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^mango_[A-Za-z0-9_-]{43}$/);
    expect((await new DatabaseUserRepository(handle.database).findByToken(lines.at(-1)!))?.name).toBe(
      'alice',
    );
  });

  test('user add of a taken name exits 1; a bad name or missing name is a usage error (2)', async () => {
    expect(await run(['user', 'add', 'alice'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('already'),
    });
    expect((await run(['user', 'add', 'bad name'])).code).toBe(2);
    expect((await run(['user', 'add'])).code).toBe(2);
    expect((await run(['user', 'frobnicate'])).code).toBe(2);
  });

  test('user list shows users and their state; revoke stops the token', async () => {
    const token = (await run(['user', 'add', 'bob'])).stdout.trimEnd().split('\n').at(-1)!;
    expect(await run(['user', 'revoke', 'bob'])).toMatchObject({ code: 0 });
    expect(await new DatabaseUserRepository(handle.database).findByToken(token)).toBeUndefined();
    expect(await run(['user', 'revoke', 'nobody'])).toMatchObject({ code: 1 });
    const listing = await run(['user', 'list']);
    expect(listing.stdout).toMatch(/^alice\s+\S+\s+active$/m);
    expect(listing.stdout).toMatch(/^bob\s+\S+\s+revoked$/m);
    const json = JSON.parse((await run(['user', 'list', '--json'])).stdout) as {
      name: string;
      revoked: boolean;
    }[];
    expect(json.map((user) => [user.name, user.revoked])).toEqual([
      ['alice', false],
      ['bob', true],
    ]);
  });

  test("tool call --user NAME runs with that user's saved settings", async () => {
    const alice = (await new DatabaseUserRepository(handle.database).findByName('alice'))!;
    await new DatabaseToolSettingsRepository(handle.database).put(alice.id, 'get_current_datetime', {
      enabled: false,
    });
    const disabled = await run([
      'tool',
      'call',
      'get_current_datetime',
      '{"timezone":"UTC"}',
      '--user',
      'alice',
    ]);
    expect(disabled.code).toBe(1);
    expect(JSON.parse(disabled.stdout).error.classification).toBe('tool_disabled');
    const enabled = await run([
      'tool',
      'call',
      'get_current_datetime',
      '{"timezone":"UTC"}',
      '--user=alice',
      '--enable',
    ]);
    expect(enabled.code).toBe(0);
    const defaults = await run(['tool', 'call', 'get_current_datetime', '{"timezone":"UTC"}']);
    expect(defaults.code).toBe(0);
    expect((await run(['tool', 'call', 'get_current_datetime', '--user', 'nobody'])).code).toBe(2);
  });
});

describe('extractUserOption', () => {
  test.each([
    [['call', 'x', '--user', 'a'], ['call', 'x'], 'a'],
    [['--user=b', 'call'], ['call'], 'b'],
    [['call', '--', '--user', 'c'], ['call', '--', '--user', 'c'], undefined],
    [['call'], ['call'], undefined],
  ])('%p', (argv, remaining, userName) => {
    expect(extractUserOption(argv)).toEqual({ argv: remaining, userName });
  });

  test('--user without a name is a usage error', () => {
    expect(() => extractUserOption(['--user'])).toThrow('needs a user NAME');
    expect(() => extractUserOption(['--user='])).toThrow('needs a user NAME');
  });
});
