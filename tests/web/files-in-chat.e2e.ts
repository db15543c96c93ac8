/**
 * The files panel inside a chat, in real headless Chromium against the real server, at desktop size and
 * on the phone layout (390×844, the panel a bottom sheet): it lists its folder again by itself after
 * tool results that can change files (a burst of parallel writes once; a read-only call not at all),
 * keeping the folder, the list's scroll and the rows that did not change; workspaces are named as people know them, never by
 * the server's path; text and images are previewed (markup as text, an image from a `blob:` URL under
 * the page's CSP); a workspace file or an upload is attached to a message, the model is told its path,
 * and the sent message shows it again after a reload. Run by `npm run test:e2e`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import {
  callApi,
  launchTestBrowser,
  PHONE_VIEWPORT,
  SCREENSHOT_DIRECTORY,
  signIn,
  startWebTestServer,
  type TestBrowser,
  type WebTestServer,
} from '../helpers/web-browser.ts';

const TIMEOUT_MS = 90_000;
/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);
const HOSTILE_TEXT = '<img src=x onerror="window.__pwned=1"><b>not bold</b>\n';

let replay: ReplayServer;
let server: WebTestServer;
let browser: TestBrowser;
let personal: string;

beforeAll(async () => {
  replay = startReplayServer();
  server = await startWebTestServer({ environment: { OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1` } });
  // The panel is the subject here, not approvals: the file tool's writes and the shell run without asking.
  for (const [tool, enabled] of [
    ['write_file', {}],
    ['bash', { enabled: true }],
  ] as const) {
    const settings = await callApi(server, 'PUT', `/api/settings/tools/${tool}`, {
      ...enabled,
      parameters: { approval: 'never' },
    });
    expect(settings.status).toBe(200);
  }
  const listed = (await (await callApi(server, 'GET', '/api/workspaces')).json()) as {
    workspaces: { kind: string; path: string; name: string }[];
  };
  personal = listed.workspaces.find((workspace) => workspace.kind === 'personal')!.path;
  browser = await launchTestBrowser(server.url);
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await replay?.close();
}, 30_000);

/** A chat working in `directory` (absent: the personal workspace), opened in a new page. */
async function openChat(
  title: string,
  directory: string | undefined,
  viewport?: { width: number; height: number },
) {
  const created = await callApi(server, 'POST', '/api/chats', {
    provider: 'openai-compatible',
    model: 'test-model',
    title,
    ...(directory === undefined ? {} : { workingDirectory: directory }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const page = await browser.newPage(viewport);
  await signIn(page, server.url, server.token);
  await page.goto(`${server.url}/chats/${encodeURIComponent(id)}`);
  await page.getByRole('heading', { name: title, level: 1 }).waitFor();
  return { id, page, panel: page.getByRole('complementary', { name: 'Files' }) };
}

/** Counts the panel's folder listings (not downloads) from now on. */
function countListings(page: Page): { count: () => number } {
  let count = 0;
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.method() === 'GET' && /^\/api\/workspaces\/[^/]+\/files$/.test(url.pathname)) count += 1;
  });
  return { count: () => count };
}

async function send(page: Page, message: string, answer: string): Promise<void> {
  await page.getByLabel('Message').fill(message);
  await page.getByLabel('Message').press('Enter');
  await page.getByText(answer, { exact: true }).waitFor();
}

const writeCall = (id: string, file: string) => ({
  id,
  name: 'write_file',
  fragments: [JSON.stringify({ path: file, content: `${file}\n` })],
});

describe('the files panel in a chat at desktop size', () => {
  test(
    'refreshes after file-changing results only, once per burst, keeping folder, scroll and rows',
    async () => {
      const project = path.join(server.root, 'refreshing');
      await mkdir(path.join(project, 'docs'), { recursive: true });
      for (let index = 0; index < 80; index += 1) {
        await writeFile(path.join(project, 'docs', `file-${String(index).padStart(2, '0')}.txt`), 'x');
      }
      const { page, panel } = await openChat('Refreshing chat', project);
      await panel.getByRole('button', { name: 'Open folder docs' }).click();
      await panel.getByRole('button', { name: 'Download file-79.txt' }).waitFor();
      expect(await panel.locator('.files-where').textContent()).toBe(
        `${path.basename(server.root)} / refreshing/docs`,
      );
      const listings = countListings(page);

      // A read-only call changes nothing: no listing follows it.
      replay.enqueue(
        {
          body: chatBody({
            calls: [{ id: 'r1', name: 'read_file', fragments: ['{"path":"docs/file-00.txt"}'] }],
          }),
        },
        { body: chatBody({ text: 'Read it.' }) },
      );
      await send(page, 'Read one', 'Read it.');

      // Four writes in one response: the panel, scrolled and with focus on a row, lists once.
      const list = panel.getByRole('list', { name: 'Files in this folder' });
      await list.evaluate((element) => {
        element.scrollTop = 400;
      });
      const scrolled = await list.evaluate((element) => element.scrollTop);
      expect(scrolled).toBeGreaterThan(300);
      // Rows that did not change stay the same nodes (so focus on one, or a selection, survives).
      await panel.getByRole('button', { name: 'Download file-40.txt' }).evaluate((node) => {
        (node as HTMLElement).dataset.marker = 'kept';
      });
      replay.enqueue(
        {
          body: chatBody({
            calls: [
              writeCall('w1', 'docs/zz-1.txt'),
              writeCall('w2', 'docs/zz-2.txt'),
              writeCall('w3', 'docs/zz-3.txt'),
              writeCall('w4', 'top.txt'),
            ],
          }),
        },
        { body: chatBody({ text: 'Wrote four.' }) },
      );
      await page.getByLabel('Message').fill('Write four');
      await page.getByLabel('Message').press('Enter');
      await page.getByText('Wrote four.', { exact: true }).waitFor();
      await panel.getByRole('button', { name: 'Preview zz-3.txt' }).waitFor();
      expect(await panel.locator('.files-where').textContent()).toBe(
        `${path.basename(server.root)} / refreshing/docs`,
      );
      expect(await list.evaluate((element) => element.scrollTop)).toBe(scrolled);
      expect(
        await panel.getByRole('button', { name: 'Download file-40.txt' }).getAttribute('data-marker'),
      ).toBe('kept');
      // The Refresh button's own listing marks the end: by then only the burst's one came before it.
      await Promise.all([
        page.waitForResponse((response) => /\/files\?path=/.test(response.url())),
        panel.getByRole('button', { name: 'Refresh' }).click(),
      ]);
      expect(listings.count()).toBe(2);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'files-in-chat-refreshed.png') });
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'the personal workspace is "My workspace" in the panel and the header; its server path shows nowhere',
    async () => {
      const { page, panel } = await openChat('Personal chat', undefined);
      await panel.locator('.files-where', { hasText: /^My workspace$/ }).waitFor();
      await page.locator('.chat-header .chat-meta', { hasText: /^in My workspace$/ }).waitFor();
      expect(await page.evaluate(() => document.body.textContent)).not.toContain(personal);
      expect(personal).toContain('/workspaces/');
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'previews text as text (markup too, bounded) and an image from a blob: URL',
    async () => {
      const project = path.join(server.root, 'previews');
      await mkdir(project, { recursive: true });
      await writeFile(path.join(project, 'page.html'), HOSTILE_TEXT);
      await writeFile(path.join(project, 'dot.png'), PNG);
      await writeFile(path.join(project, 'big.log'), 'line\n'.repeat(80_000));
      await writeFile(path.join(project, 'blob.bin'), Buffer.from([0, 1, 2, 3, 0xff]));
      const { page, panel } = await openChat('Preview chat', project);

      await panel.getByRole('button', { name: 'Preview page.html' }).click();
      const dialog = page.getByRole('dialog', { name: 'page.html' });
      await dialog.getByLabel('Contents of page.html').waitFor();
      expect(await dialog.getByLabel('Contents of page.html').textContent()).toBe(HOSTILE_TEXT);
      expect(await dialog.locator('b, img').count()).toBe(0);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
        'Preview page.html',
      );

      await panel.getByRole('button', { name: 'Preview dot.png' }).click();
      const image = page.getByRole('dialog', { name: 'dot.png' }).getByRole('img', { name: 'dot.png' });
      await image.waitFor();
      await page.waitForFunction(
        () => (document.querySelector('.files-preview-image') as HTMLImageElement)?.complete,
      );
      expect(
        await image.evaluate((element) => [
          (element as HTMLImageElement).naturalWidth,
          (element as HTMLImageElement).src.slice(0, 5),
        ]),
      ).toEqual([1, 'blob:']);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'files-preview-image.png') });
      await page.getByRole('dialog', { name: 'dot.png' }).getByRole('button', { name: 'Close' }).click();

      await panel.getByRole('button', { name: 'Preview big.log' }).click();
      const big = page.getByRole('dialog', { name: 'big.log' });
      await big
        .getByText('Showing the first 256.0 KB of 390.6 KB; download the file for the rest.')
        .waitFor();
      expect((await big.getByLabel('Contents of big.log').textContent())!.length).toBe(256 * 1024);
      await big.getByRole('button', { name: 'Close' }).click();

      await panel.getByRole('button', { name: 'Preview blob.bin' }).click();
      await page
        .getByRole('dialog', { name: 'blob.bin' })
        .getByText('This file is neither text nor an image the preview shows; download it to open it.')
        .waitFor();
      await page.keyboard.press('Escape');
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(browser.offOriginRequests).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'attach a workspace file and an upload: chips, removable; the model gets the paths; shown after reload',
    async () => {
      const project = path.join(server.root, 'attaching');
      await mkdir(path.join(project, 'notes'), { recursive: true });
      await writeFile(path.join(project, 'notes', 'plan.md'), '# Plan\n');
      await writeFile(path.join(project, 'other.txt'), 'other\n');
      const { id, page, panel } = await openChat('Attach chat', project);
      const chips = page.locator('form.composer').getByRole('list', { name: 'Attached files' });

      await panel.getByRole('button', { name: 'Attach other.txt' }).click();
      await panel.getByRole('button', { name: 'Open folder notes' }).click();
      await panel.getByRole('button', { name: 'Attach plan.md' }).click();
      expect(await chips.locator('.attachment-name').allTextContents()).toEqual(['other.txt', 'plan.md']);
      await chips.getByRole('button', { name: 'Remove attachment other.txt' }).click();
      expect(await chips.locator('.attachment-name').allTextContents()).toEqual(['plan.md']);

      // An upload from the composer lands in the chat's folder (not the one the panel shows) and is attached.
      await page.getByLabel('Attach files').setInputFiles({
        name: 'data.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('a,b\n1,2\n'),
      });
      await chips.locator('.attachment-name', { hasText: /^data\.csv$/ }).waitFor();
      expect(await readFile(path.join(project, 'data.csv'), 'utf8')).toBe('a,b\n1,2\n');
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'files-attachments-desktop.png') });

      replay.enqueue({ body: chatBody({ text: 'Both read.' }) });
      await send(page, 'Summarise these', 'Both read.');
      expect(await chips.isHidden()).toBe(true);
      const sent = replay.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
      expect(sent.messages.findLast((message) => message.role === 'user')!.content).toBe(
        [
          'Summarise these',
          '',
          '[Files the user attached to this message; read them with the file tools:',
          `- ${JSON.stringify(path.join(project, 'notes', 'plan.md'))}`,
          `- ${JSON.stringify(path.join(project, 'data.csv'))}`,
          ']',
        ].join('\n'),
      );
      const bubble = page.locator('.message-user').last();
      expect(
        await bubble.getByRole('list', { name: 'Attached files' }).locator('li').allTextContents(),
      ).toEqual(['plan.md', 'data.csv']);

      await page.reload();
      await page.getByText('Both read.', { exact: true }).waitFor();
      expect(
        await page
          .locator('.message-user')
          .last()
          .getByRole('list', { name: 'Attached files' })
          .locator('li')
          .allTextContents(),
      ).toEqual(['plan.md', 'data.csv']);
      // The message text is stored as typed.
      expect(
        await page
          .locator('.message-user')
          .last()
          .evaluate((node) => node.firstChild?.nextSibling?.textContent),
      ).toBe('Summarise these');

      // A file gone since it was attached: the server says so, and text and chip come back to the composer.
      await panel.getByRole('button', { name: 'Open folder notes' }).click();
      await panel.getByRole('button', { name: 'Attach plan.md' }).click();
      await rm(path.join(project, 'notes', 'plan.md'));
      await page.getByLabel('Message').fill('Read the plan');
      await page.getByLabel('Message').press('Enter');
      const planPath = JSON.stringify(path.join(project, 'notes', 'plan.md'));
      await page
        .locator('.turn-status', { hasText: `Not sent: Attachment 1 (${planPath}) does not exist.` })
        .waitFor();
      expect(await page.getByLabel('Message').inputValue()).toBe('Read the plan');
      expect(await chips.locator('.attachment-name').allTextContents()).toEqual(['plan.md']);

      // A path outside the chat's folder is refused by the server with a clear message.
      const refused = await callApi(server, 'POST', `/api/chats/${id}/turns`, {
        message: 'x',
        attachments: [{ path: path.join(personal, 'x.txt') }],
      });
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as { code: string }).code).toBe('invalid_attachment');
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );
});

describe('the files panel on the phone layout', () => {
  test(
    'the sheet is current after a shell command wrote, names the place, previews within the screen, attaches',
    async () => {
      const project = path.join(server.root, 'phone');
      await mkdir(project, { recursive: true });
      // The shell runs as the sandbox's account, which must be able to write here.
      await chmod(project, 0o777);
      await writeFile(path.join(project, 'readme.txt'), 'hello from the phone\n');
      const { page, panel } = await openChat('Phone files', project, PHONE_VIEWPORT);
      const filesButton = page.getByRole('button', { name: 'Files', exact: true });
      await filesButton.click();
      await panel.getByRole('button', { name: 'Preview readme.txt' }).waitFor();
      expect(await panel.locator('.files-where').textContent()).toBe(`${path.basename(server.root)} / phone`);
      await page.keyboard.press('Escape');
      await page.getByRole('heading', { name: 'Files', level: 2 }).waitFor({ state: 'hidden' });

      replay.enqueue(
        {
          body: chatBody({
            calls: [
              {
                id: 'p1',
                name: 'bash',
                fragments: [JSON.stringify({ command: 'echo made > from-shell.txt' })],
              },
            ],
          }),
        },
        { body: chatBody({ text: 'Written on the phone.' }) },
      );
      await send(page, 'Make a file in the shell', 'Written on the phone.');
      await filesButton.click();
      // Listed again while the sheet was closed, after the shell's result: no Refresh needed.
      await panel.getByRole('button', { name: 'Preview from-shell.txt' }).waitFor();

      await panel.getByRole('button', { name: 'Preview readme.txt' }).click();
      const dialog = page.getByRole('dialog', { name: 'readme.txt' });
      await dialog.getByLabel('Contents of readme.txt').waitFor();
      const box = (await dialog.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE_VIEWPORT.width);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'files-preview-phone.png') });
      await dialog.getByRole('button', { name: 'Attach' }).click();
      await dialog.getByRole('button', { name: 'Close' }).click();
      await panel.getByRole('button', { name: 'Close the files' }).click();
      const chips = page.locator('form.composer').getByRole('list', { name: 'Attached files' });
      expect(await chips.locator('.attachment-name').allTextContents()).toEqual(['readme.txt']);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'files-attachments-phone.png') });
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );
});
