/**
 * `mango workspace …`, `mango user token` and `mango user set`, in process against a real database (both
 * backends) and real directories; `mango tool call --user` then reaches exactly what was granted.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseChatRepository } from '../../src/db/database-chat-repository.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { DatabaseWorkspaceRepository } from '../../src/db/database-workspace-repository.ts';
import { runCliCaptured } from '../helpers/captured-io.ts';
import { testChat } from '../helpers/test-chat.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

describe.each(BACKENDS)('mango workspace and user token on %s', (backend) => {
  let handle: TestDatabase;
  let work: string;
  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    work = realpathSync(mkdtempSync(join(tmpdir(), 'mango-workspace-cli-')));
    mkdirSync(join(work, 'project'));
    writeFileSync(join(work, 'project', 'readme.txt'), 'hello\n');
    // As root, a grant is refused unless the user's uid can reach it: every uid may pass `work` and
    // write `project` (workspace-grant-check.test.ts tests the check itself).
    chmodSync(work, 0o755);
    chmodSync(join(work, 'project'), 0o777);
  }, 30_000);
  afterAll(async () => {
    await handle.dispose();
    rmSync(work, { recursive: true, force: true });
  });

  async function run(argv: string[], env: Record<string, string | undefined> = {}) {
    return runCliCaptured(argv, work, {
      MANGO_DATA_DIR: handle.config.dataDirectory,
      DATABASE_URL: handle.config.databaseUrl,
      MANGO_WORKSPACES_DIR: handle.config.workspacesDirectory,
      ...env,
    });
  }

  test('grant, list, tool call --user, revoke', async () => {
    expect((await run(['user', 'add', 'ana'])).code).toBe(0);
    const ana = (await new DatabaseUserRepository(handle.database).findByName('ana'))!;
    expect(await run(['workspace', 'grant', 'ana', 'project', '--read-only'])).toEqual({
      code: 0,
      stdout: `Granted ${join(work, 'project')} to "ana" (read-only).\n`,
      stderr: '',
    });
    const listed = await run(['workspace', 'list', 'ana']);
    expect(listed.stdout).toBe(
      `ana   personal  read-write  ${join(handle.config.workspacesDirectory, ana.id)}\n` +
        `ana   granted   read-only   ${join(work, 'project')}\n`,
    );
    const read = await run([
      'tool',
      'call',
      'read_file',
      '{"path":"readme.txt"}',
      '--user',
      'ana',
      '--cwd',
      'project',
    ]);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('hello');
    const outside = await run(['tool', 'call', 'list_directory', '{}', '--user', 'ana', '--cwd', work]);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain(
      '--cwd: The working directory is not inside any of your workspaces (GET /api/workspaces lists them).',
    );
    expect(await run(['workspace', 'revoke', 'ana', join(work, 'project')])).toMatchObject({ code: 0 });
    expect((await run(['workspace', 'revoke', 'ana', join(work, 'project')])).code).toBe(1);
    expect(await new DatabaseWorkspaceRepository(handle.database).listGrants(ana.id)).toEqual([]);
  });

  test('grants of protected directories are refused with the reason', async () => {
    expect((await run(['user', 'add', 'bo'])).code).toBe(0);
    const refused = await run(['workspace', 'grant', 'bo', handle.config.dataDirectory]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("lies inside the server's data directory (database, images)");
    expect((await run(['workspace', 'grant', 'bo', '/dev'])).stderr).toContain(
      'lies inside the device directory',
    );
    expect((await run(['workspace', 'grant', 'bo', '/nope/missing'])).stderr).toBe(
      'mango: Cannot grant /nope/missing: it does not exist.\n',
    );
  });

  test('grant-existing grants the directories chats are bound to, refusing protected ones', async () => {
    expect((await run(['user', 'add', 'cy'])).code).toBe(0);
    const cy = (await new DatabaseUserRepository(handle.database).findByName('cy'))!;
    const chats = new DatabaseChatRepository(handle.database);
    const chat = (id: string, workingDirectory: string | null) =>
      testChat(id, '2026-01-01T00:00:00.000Z', { userId: cy.id, workingDirectory });
    await chats.createChat(chat('c1', join(work, 'project')));
    await chats.createChat(chat('c2', handle.config.dataDirectory));
    await chats.createChat(chat('c3', null));
    const dry = await run(['workspace', 'grant-existing', '--dry-run']);
    expect(dry.stdout).toContain(`would grant: "cy" ${join(work, 'project')} (read-write)\n`);
    expect(dry.stdout).toContain(`refused: "cy" Cannot grant ${handle.config.dataDirectory}:`);
    expect(await new DatabaseWorkspaceRepository(handle.database).listGrants(cy.id)).toEqual([]);
    const applied = await run(['workspace', 'grant-existing']);
    expect(applied.stdout).toContain(`granted: "cy" ${join(work, 'project')} (read-write)\n`);
    const grants = await new DatabaseWorkspaceRepository(handle.database).listGrants(cy.id);
    expect(grants.map((grant) => [grant.path, grant.readOnly])).toEqual([[join(work, 'project'), false]]);
    expect((await run(['workspace', 'grant-existing'])).stdout).toContain(
      `already granted: "cy" ${join(work, 'project')}\n`,
    );
  });

  test('user token issues a new token and the old one stops working at once', async () => {
    const users = new DatabaseUserRepository(handle.database);
    const { token: old } = await users.create('dee');
    const issued = await run(['user', 'token', 'dee']);
    expect(issued.code).toBe(0);
    const fresh = issued.stdout.trimEnd().split('\n').at(-1)!;
    expect(fresh).toMatch(/^mango_[A-Za-z0-9_-]{43}$/);
    expect(await users.findByToken(old)).toBeUndefined();
    expect((await users.findByToken(fresh))?.name).toBe('dee');
    expect((await run(['user', 'token', 'nobody'])).code).toBe(1);
  });

  test('user set --allow-unrestricted / --no-allow-unrestricted', async () => {
    const users = new DatabaseUserRepository(handle.database);
    const { user } = await users.create('eve');
    const workspaces = new DatabaseWorkspaceRepository(handle.database);
    expect((await run(['user', 'set', 'eve', '--allow-unrestricted'])).code).toBe(0);
    expect(await workspaces.isUnrestrictedAllowed(user.id)).toBe(true);
    expect((await run(['user', 'set', 'eve', '--no-allow-unrestricted'])).code).toBe(0);
    expect(await workspaces.isUnrestrictedAllowed(user.id)).toBe(false);
    expect((await run(['user', 'set', 'eve'])).code).toBe(2);
  });

  test('a CLI with MANGO_WORKSPACE_ROOTS still set refuses to start and says what to do', async () => {
    const refused = await run(['user', 'list'], { MANGO_WORKSPACE_ROOTS: '/srv' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('MANGO_WORKSPACE_ROOTS is no longer supported');
    expect(refused.stderr).toContain('mango workspace grant NAME DIR');
  });
});
