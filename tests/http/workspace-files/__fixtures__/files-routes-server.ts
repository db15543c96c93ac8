/**
 * Fixture: a process in the server's place for the files routes. It makes a SQLite database and a
 * workspaces directory under one base directory, installs the shell sandbox and the server's file
 * workers (or, given `in-process`, neither, for a control), creates alice and her personal workspace
 * with one file, warms her worker with one listing, and prints `{"ready":…}` with its pid, the base and
 * her workspace. On the line `turn` it sends one round of the routes (list, upload, download, list a
 * folder, download a missing file, and attachments of a message checked) through the real app and prints `{"done":…}` with their statuses
 * and bodies; on `quit` it cleans up and exits. A test may kill it instead.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkAttachments } from '../../../../src/chat/message-attachments.ts';
import { DEFAULT_MAX_REQUEST_BODY_BYTES, type ServerConfig } from '../../../../src/config.ts';
import { errorMessage } from '../../../../src/errors/error-message.ts';
import { openDatabase } from '../../../../src/db/database.ts';
import { migrate } from '../../../../src/db/migrate.ts';
import { createApp } from '../../../../src/http/app.ts';
import { createAppDependencies } from '../../../../src/http/app-dependencies.ts';
import { handToSandboxUser } from '../../../../src/sandbox/sandbox-file-owner.ts';
import { workspaceId } from '../../../../src/workspaces/workspace-id.ts';
import { installTestFileWork } from '../../../helpers/test-file-workers.ts';
import { serveFixtureCommands } from '../../../file-worker/serve-fixture-commands.ts';

const mode = process.argv[2] === 'in-process' ? 'in-process' : 'worker';
// Outside /tmp, like a real deployment (a sandbox's /tmp is private).
const base = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'mango-files-routes-server-'));
chmodSync(base, 0o755);
const config: ServerConfig = {
  host: '127.0.0.1',
  port: 0,
  dataDirectory: join(base, 'data'),
  databaseUrl: undefined,
  shutdownTimeoutMs: 5_000,
  maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
  workspacesDirectory: join(base, 'workspaces'),
};
mkdirSync(config.dataDirectory, { mode: 0o700 });
mkdirSync(config.workspacesDirectory, { mode: 0o711 });
const database = await openDatabase({ ...config, maxConnections: 4 });
await migrate(database);
const fileWork = installTestFileWork(database, mode);
const deps = createAppDependencies({ config, database, now: Date.now, log: () => {}, externalTools: null });
const app = createApp(deps);
const { user, token } = await deps.users.create('alice');
const home = await deps.workspaces.personalWorkspace(user.id);
writeFileSync(join(home, 'plan.txt'), 'first\nsecond\n');
mkdirSync(join(home, 'notes'));
for (const entry of ['plan.txt', 'notes']) await handToSandboxUser(join(home, entry), user.id);
const files = `http://localhost/api/workspaces/${workspaceId(home)}/files`;

const send = async (method: string, query: string, body?: string): Promise<string> => {
  const response = await app.handle(
    new Request(`${files}${query}`, { method, headers: { authorization: `Bearer ${token}` }, body }),
  );
  return `${response.status} ${await response.text()}`;
};

// A message's attachments, checked as the chat service checks them for a chat in her workspace.
const attach = async (paths: string[]): Promise<string> => {
  const accessOf = async () => ({
    reachable: (await deps.workspaces.reachableSetFor(user.id, { workingDirectory: home, confined: true }))
      .reachable,
    confined: true,
  });
  try {
    return JSON.stringify(await checkAttachments(paths, accessOf, user.id, Date.now));
  } catch (error) {
    return errorMessage(error);
  }
};

// Warm: the worker exists before the turn, as it does after the panel's first listing.
const warm = await send('GET', '');
process.stdout.write(
  `${JSON.stringify({ ready: warm.startsWith('200 '), pid: process.pid, base, alice: home, workers: fileWork.pool?.workers().size ?? 0 })}\n`,
);

let round = 0;
const turn = async () => {
  round += 1;
  return [
    await send('GET', '?path='),
    await send('POST', `?path=notes&name=today-${round}.txt`, `written in round ${round}\n`),
    await send('GET', `/content?path=notes/today-${round}.txt`),
    await send('GET', '?path=notes'),
    await send('GET', '/content?path=plan.txt'),
    await send('GET', '/content?path=missing.txt'),
    await attach(['plan.txt', `notes/today-${round}.txt`]),
    await attach(['notes']),
  ];
};

await serveFixtureCommands({
  rounds: { turn },
  quit: async () => {
    fileWork.stop();
    await database.close();
    rmSync(base, { recursive: true, force: true });
  },
});
