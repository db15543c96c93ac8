/**
 * Files attached to a message, through `POST /api/chats/:id/turns` over the real chat repository on
 * SQLite and PostgreSQL: each path is checked against what the chat's tools reach (a confined chat: its
 * working directory) and stored as its real path with the message, the text stays as typed, the model
 * reads the paths after the message on this turn and later ones, a regenerate and an edit keep them, and the
 * stored message still lists them after a restart. Every refusal is a 422 `invalid_attachment` naming
 * the attachment, and leaves no message and no turn behind.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../../src/http/app-dependencies.ts';
import { ToolRegistry } from '../../../src/tools/registry.ts';
import { ScriptedProvider, textResponse } from '../../helpers/scripted-provider.ts';
import { collectSseEvents } from '../../helpers/sse-client.ts';
import { createStubProviderRegistry } from '../../helpers/stub-provider-registry.ts';
import { FIXED_NOW } from '../../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';
import {
  FILE_WORK,
  type InstalledTestFileWork,
  installTestFileWork,
} from '../../helpers/test-file-workers.ts';

const NOTE_HEAD = '[Files the user attached to this message; read them with the file tools:';

const CASES = BACKENDS.flatMap((backend) => FILE_WORK.map((fileWork) => [backend, fileWork] as const));

describe.each(CASES)('message attachments over the %s chat repository, file work %s', (backend, fileWork) => {
  let handle: TestDatabase;
  let installed: InstalledTestFileWork;
  let project: string;
  let personal: string;
  let deps: AppDependencies;
  let app: ReturnType<typeof createApp>;
  let token: string;
  let chatId: string;
  const provider = new ScriptedProvider(
    [
      textResponse('Read them.'),
      textResponse('Still here.'),
      textResponse('Again.'),
      textResponse('Edited.'),
    ],
    { id: 'openai' },
  );

  const build = () => {
    deps = createAppDependencies({
      config: handle.config,
      database: handle.database,
      registry: new ToolRegistry(),
      now: () => FIXED_NOW,
      providers: createStubProviderRegistry({ openai: provider }),
      log: () => {},
    });
    app = createApp(deps);
  };
  const request = (method: string, path: string, body?: unknown) =>
    app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  const send = (message: string, paths: string[]) =>
    request('POST', `/api/chats/${chatId}/turns`, {
      message,
      attachments: paths.map((path) => ({ path })),
    });
  const storedMessages = async () =>
    (
      (await (await request('GET', `/api/chats/${chatId}`)).json()) as {
        messages: {
          id: string;
          role: string;
          item: { type: string; text?: string; attachments?: unknown };
        }[];
      }
    ).messages;
  const lastUserText = (index: number) =>
    provider.requests[index]!.history.findLast((item) => item.type === 'user_text');

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    installed = installTestFileWork(handle.database, fileWork);
    project = await realpath(await mkdtemp(join(tmpdir(), 'mango-attachments-')));
    // Readable by dana's uid, as a grant must be for her file worker (mkdtemp makes it 0700).
    await chmod(project, 0o755);
    await mkdir(join(project, 'notes', 'deep'), { recursive: true });
    await writeFile(join(project, 'notes', 'a.txt'), 'alpha\n');
    await writeFile(join(project, 'report "q3"\n.md'), '# Q3\n');
    await symlink(join(project, 'notes', 'a.txt'), join(project, 'link-to-a'));
    execFileSync('mkfifo', [join(project, 'pipe')]);
    build();
    const dana = await deps.users.create('dana');
    token = dana.token;
    await deps.workspaces.grant(dana.user.id, project, false);
    personal = await deps.workspaces.personalWorkspace(dana.user.id);
    await writeFile(join(personal, 'mine.txt'), 'personal\n');
    await symlink(join(personal, 'mine.txt'), join(project, 'link-out'));
    const created = await request('POST', '/api/chats', {
      provider: 'openai',
      model: 'm',
      workingDirectory: project,
    });
    expect(created.status).toBe(201);
    chatId = ((await created.json()) as { id: string }).id;
  }, 30_000);
  afterAll(async () => {
    installed.stop();
    await handle.dispose();
    await rm(project, { recursive: true, force: true });
  });

  test('each refusal names the attachment and why, and leaves no message and no turn', async () => {
    const cases: [string, string][] = [
      [
        join(personal, 'mine.txt'),
        `is not a file inside this chat's working directory (${project}); attach a file from there.`,
      ],
      [
        '/etc/passwd',
        `is not a file inside this chat's working directory (${project}); attach a file from there.`,
      ],
      [
        'link-out',
        `is not a file inside this chat's working directory (${project}); attach a file from there.`,
      ],
      ['../x', `is not a file inside this chat's working directory (${project}); attach a file from there.`],
      ['notes/missing.txt', 'does not exist.'],
      ['notes', 'is a directory; attach the files in it instead.'],
      ['pipe', 'is not a regular file (a FIFO, socket or device).'],
    ];
    for (const [path, why] of cases) {
      const response = await send('Look', ['notes/a.txt', path]);
      expect([path, response.status, await response.json()]).toEqual([
        path,
        422,
        { error: `Attachment 2 (${JSON.stringify(path)}) ${why}`, code: 'invalid_attachment' },
      ]);
    }
    const tooMany = await send(
      'Look',
      Array.from({ length: 21 }, () => 'notes/a.txt'),
    );
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { code: string }).code).toBe('invalid_request');
    expect(await storedMessages()).toEqual([]);
    expect((await request('GET', `/api/chats/${chatId}/turns/current`)).status).toBe(404);
    expect(provider.requests).toEqual([]);
  });

  test('stored with the message as real paths; the model reads them after the text, now and later', async () => {
    const events = await collectSseEvents(
      await send('What is in these?', ['notes/a.txt', `${project}/report "q3"\n.md`, 'link-to-a']),
    );
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    const attached = [{ path: join(project, 'notes', 'a.txt') }, { path: join(project, 'report "q3"\n.md') }];
    expect((await storedMessages())[0]!.item).toEqual({
      type: 'user_text',
      text: 'What is in these?',
      attachments: attached,
    });
    const told = [
      'What is in these?',
      '',
      NOTE_HEAD,
      `- ${JSON.stringify(join(project, 'notes', 'a.txt'))}`,
      `- ${JSON.stringify(join(project, 'report "q3"\n.md'))}`,
      ']',
    ].join('\n');
    expect(lastUserText(0)).toEqual({ type: 'user_text', text: told });

    // A regenerate answers the message again as it was, its attachments with it.
    await collectSseEvents(await request('POST', `/api/chats/${chatId}/turns/regenerate`));
    expect(lastUserText(1)).toEqual({ type: 'user_text', text: told });

    await collectSseEvents(await request('POST', `/api/chats/${chatId}/turns`, { message: 'And now?' }));
    const third = provider.requests[2]!.history.filter((item) => item.type === 'user_text');
    expect(third).toEqual([
      { type: 'user_text', text: told },
      { type: 'user_text', text: 'And now?' },
    ]);

    // An edit replaces the text and keeps the files.
    const first = (await storedMessages())[0] as { id?: string };
    await collectSseEvents(
      await request('POST', `/api/chats/${chatId}/messages/${first.id}/edit`, { message: 'Compare them.' }),
    );
    expect(lastUserText(3)).toEqual({
      type: 'user_text',
      text: told.replace('What is in these?', 'Compare them.'),
    });

    await handle.reopen();
    build();
    const users = (await storedMessages()).filter((message) => message.role === 'user');
    expect(users.map((message) => message.item)).toEqual([
      { type: 'user_text', text: 'Compare them.', attachments: attached },
    ]);
    const exported = await (await request('GET', `/api/chats/${chatId}/export`)).text();
    expect(exported).toContain(
      `Compare them.\n\nAttached files:\n\n\`\`\`\n${attached.map((file) => file.path).join('\n')}\n\`\`\``,
    );
  });
});
