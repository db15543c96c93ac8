/**
 * The files panel in real headless Chromium against the real server: a file uploaded through the
 * panel's file input appears in the listing, a tool reads it in a scripted provider turn, a file a
 * tool wrote is downloaded through the panel (fetched with the token, saved by the browser), and a
 * hostile file name stays text. Screenshots at desktop and phone width. Run by `npm run test:e2e`.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import { openToolCall } from '../helpers/tool-call-card.ts';
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

const TIMEOUT_MS = 60_000;
let replay: ReplayServer;
let server: WebTestServer;
let browser: TestBrowser;
let project: string;

beforeAll(async () => {
  replay = startReplayServer();
  server = await startWebTestServer({ environment: { OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1` } });
  // The panel is the subject here, not approvals: the tool's write runs without asking.
  const settings = await callApi(server, 'PUT', '/api/settings/tools/write_file', {
    parameters: { approval: 'never' },
  });
  expect(settings.status).toBe(200);
  project = path.join(server.root, 'project');
  await mkdir(path.join(project, 'docs'), { recursive: true });
  await writeFile(path.join(project, '<img src=x onerror="window.__pwned=1">.txt'), 'x');
  browser = await launchTestBrowser(server.url);
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await replay?.close();
}, 30_000);

test(
  'upload, see it listed, a tool reads it; download a file a tool wrote',
  async () => {
    const created = await fetch(`${server.url}/api/chats`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        provider: 'openai-compatible',
        model: 'test-model',
        title: 'Files chat',
        workingDirectory: project,
      }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const page = await browser.newPage();
    await signIn(page, server.url, server.token);
    await page.goto(`${server.url}/chats/${encodeURIComponent(id)}`);
    await page.getByRole('heading', { name: 'Files chat', level: 1 }).waitFor();
    const panel = page.getByRole('complementary', { name: 'Files' });
    await panel.getByRole('button', { name: 'Open folder docs' }).waitFor();
    expect(await panel.locator('.files-name').allTextContents()).toEqual([
      '<img src=x onerror="window.__pwned=1">.txt',
    ]);

    await panel.getByLabel('Upload files').setInputFiles({
      name: 'uploaded.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('uploaded through the panel\n'),
    });
    await panel.locator('.files-name', { hasText: /^uploaded\.txt$/ }).waitFor();
    expect(await readFile(path.join(project, 'uploaded.txt'), 'utf8')).toBe('uploaded through the panel\n');

    replay.enqueue(
      {
        body: chatBody({
          calls: [
            { id: 'call_read', name: 'read_file', fragments: ['{"path":"uploaded.txt"}'] },
            {
              id: 'call_write',
              name: 'write_file',
              fragments: ['{"path":"result.txt","content":"written by a tool\\n"}'],
            },
          ],
        }),
      },
      { body: chatBody({ text: 'I read it and wrote result.txt.' }) },
    );
    await page.getByLabel('Message').fill('Read the upload, write a result');
    await page.getByLabel('Message').press('Enter');
    await page.getByText('I read it and wrote result.txt.').waitFor();
    const read = page.locator('article[data-tool="read_file"]');
    await openToolCall(read);
    expect(await read.locator('.file-content').textContent()).toBe('     1\tuploaded through the panel');

    await panel.getByRole('button', { name: 'Refresh' }).click();
    const downloadButton = panel.getByRole('button', { name: 'Download result.txt' });
    await downloadButton.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), downloadButton.click()]);
    expect(download.suggestedFilename()).toBe('result.txt');
    const saved = await download.path();
    expect(await readFile(saved, 'utf8')).toBe('written by a tool\n');

    await panel.getByRole('button', { name: 'Open folder docs' }).click();
    await panel.getByText('This folder is empty.').waitFor();
    await mkdir(SCREENSHOT_DIRECTORY, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'files-panel-desktop.png') });
    await panel.getByRole('button', { name: 'Up one folder' }).click();
    await panel.locator('.files-name', { hasText: /^result\.txt$/ }).waitFor();
    expect(await panel.getByRole('button', { name: 'Up one folder' }).isDisabled()).toBe(true);
    await page.setViewportSize(PHONE_VIEWPORT);
    await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'files-panel-phone.png'), fullPage: true });
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(replay.failures).toEqual([]);
    await page.close();
  },
  TIMEOUT_MS,
);
