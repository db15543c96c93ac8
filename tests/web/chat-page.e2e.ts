/**
 * The Chat page in real headless Chromium against the real server, whose OpenAI-compatible provider
 * (the official SDK) talks to a scripted replay server on 127.0.0.1: a turn streams a bash tool card
 * and the final text, the history survives a reload, a reload during a running shell call re-attaches
 * to the turn (the call keeps running), and Cancel really stops it (its process is gone). Screenshots at desktop and phone width. Run by `npm run test:e2e`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import '../../src/tools/builtin/index.ts';
import { defaultToolRegistry, ToolRegistry } from '../../src/tools/registry.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import {
  launchTestBrowser,
  PHONE_VIEWPORT,
  SCREENSHOT_DIRECTORY,
  signIn,
  startWebTestServer,
  type TestBrowser,
  type WebTestServer,
} from '../helpers/web-browser.ts';

const TIMEOUT_MS = 45_000;
/** A 1×1 PNG. */
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/**
 * Every builtin plus a stand-in `generate_image` returning an image inline, so the card's image
 * rendering is checked without an image provider.
 */
function registryWithImageStandIn(): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of defaultToolRegistry.list())
    if (tool.definition.name !== 'generate_image') registry.register(tool);
  const standIn = makeTool({
    name: 'generate_image',
    execute: async () => ({
      prompt: 'a ripe mango',
      images: [{ base64: PNG_BASE64, mimeType: 'image/png' }],
    }),
  });
  standIn.settings = { ...standIn.settings, category: 'image', title: 'Generate image (stand-in)' };
  registry.register(standIn);
  return registry;
}
let replay: ReplayServer;
let server: WebTestServer;
let browser: TestBrowser;
let project: string;

async function api(method: string, pathname: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

beforeAll(async () => {
  replay = startReplayServer();
  server = await startWebTestServer({
    environment: { OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1` },
    registry: registryWithImageStandIn(),
  });
  project = path.join(server.root, 'project');
  await mkdir(project);
  expect((await api('PUT', '/api/settings/tools/bash', { enabled: true })).status).toBe(200);
  browser = await launchTestBrowser(server.url);
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await replay?.close();
});

async function openNewChat(page: Page, title: string): Promise<void> {
  await signIn(page, server.url, server.token);
  await page.getByRole('link', { name: 'Chats' }).click();
  await page.getByRole('heading', { name: 'New chat', level: 1 }).waitFor();
  expect(await page.getByLabel('Provider').inputValue()).toBe('openai-compatible');
  await page.getByLabel('Model').fill('test-model');
  await page.getByLabel('Title (optional)').fill(title);
  await page.getByLabel('Working directory (optional)').fill(project);
  expect(await page.getByLabel('Restrict file tools to the working directory').isChecked()).toBe(true);
  await page.getByRole('button', { name: 'Create chat' }).click();
  await page.getByRole('heading', { name: title, level: 1 }).waitFor();
}

async function send(page: Page, message: string): Promise<void> {
  await page.getByLabel('Message').fill(message);
  await page.getByLabel('Message').press('Enter');
}

describe('chat page in Chromium', () => {
  test(
    'a turn streams a bash tool card and the final text; the history survives a reload',
    async () => {
      replay.enqueue(
        {
          body: chatBody({
            text: 'Let me run it.',
            calls: [{ id: 'call_echo', name: 'bash', fragments: ['{"command":', '"echo hello-from-bash"}'] }],
          }),
        },
        { body: chatBody({ text: 'The command printed hello-from-bash.' }) },
      );
      const page = await browser.newPage();
      await openNewChat(page, 'Browser chat');
      await send(page, 'Run echo please');

      const card = page.locator('article[data-tool="bash"]');
      await card.locator('.call-status', { hasText: 'done' }).waitFor();
      await page.getByText('The command printed hello-from-bash.').waitFor();
      expect(await card.locator('.call-arguments pre').textContent()).toBe(
        '{\n  "command": "echo hello-from-bash"\n}',
      );
      expect(await card.locator('.call-duration').textContent()).toMatch(/^\d+(\.\d+)? m?s$/);
      await card.getByText('Result').click();
      expect(await card.locator('.result-shell').textContent()).toContain('hello-from-bash');
      expect(await page.getByRole('button', { name: 'Cancel' }).isHidden()).toBe(true);

      await page.screenshot({
        path: path.join(SCREENSHOT_DIRECTORY, 'chat-page-desktop.png'),
        fullPage: true,
      });
      await page.setViewportSize(PHONE_VIEWPORT);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-page-phone.png'), fullPage: true });
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);

      await page.reload();
      await page.getByText('The command printed hello-from-bash.').waitFor();
      expect(await page.getByText('Run echo please').count()).toBe(1);
      expect(await page.getByText('Let me run it.').count()).toBe(1);
      const reloadedCard = page.locator('article[data-tool="bash"]');
      expect(await reloadedCard.locator('.call-status').textContent()).toBe('done');
      await reloadedCard.getByText('Result').click();
      expect(await reloadedCard.locator('.code-block').last().textContent()).toContain('hello-from-bash');
      expect(replay.failures).toEqual([]);
      expect(browser.offOriginRequests).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'read_file content and grep matches are rendered readably',
    async () => {
      await writeFile(path.join(project, 'notes.txt'), 'first line\nmango season\nlast\n');
      replay.enqueue(
        {
          body: chatBody({
            calls: [
              { id: 'call_read', name: 'read_file', fragments: ['{"path":"notes.txt"}'] },
              { id: 'call_grep', name: 'grep', fragments: ['{"pattern":"mango","path":"."}'] },
            ],
          }),
        },
        { body: chatBody({ text: 'Line 2 mentions mango.' }) },
      );
      const page = await browser.newPage();
      await openNewChat(page, 'Files chat');
      await send(page, 'Where is mango?');
      await page.getByText('Line 2 mentions mango.').waitFor();

      const read = page.locator('article[data-tool="read_file"]');
      await read.getByText('Result').click();
      expect(await read.locator('.result-caption').textContent()).toBe(
        'notes.txt — lines 1–3 of 3, 29 bytes',
      );
      expect(await read.locator('.file-content').textContent()).toBe(
        '     1\tfirst line\n     2\tmango season\n     3\tlast',
      );

      const grep = page.locator('article[data-tool="grep"]');
      await grep.getByText('Result').click();
      expect(await grep.locator('.result-caption').first().textContent()).toBe('1 match in 1 file');
      expect(await grep.locator('.grep-file-name').textContent()).toBe('notes.txt');
      expect(await grep.locator('.grep-line').textContent()).toBe('2: mango season\n');
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'a generate_image result shows its image inline, open, with the prompt as alt text',
    async () => {
      replay.enqueue(
        { body: chatBody({ calls: [{ id: 'call_image', name: 'generate_image', fragments: ['{}'] }] }) },
        { body: chatBody({ text: 'Here is your mango.' }) },
      );
      const page = await browser.newPage();
      await openNewChat(page, 'Image chat');
      await send(page, 'Draw a mango');
      await page.getByText('Here is your mango.').waitFor();
      const image = page.locator('article[data-tool="generate_image"] img');
      await image.waitFor();
      expect(await image.getAttribute('alt')).toBe('a ripe mango');
      await page.waitForFunction(
        () => (document.querySelector('.result-images img') as HTMLImageElement | null)?.naturalWidth === 1,
      );
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'Cancel stops a running shell call: the card says cancelled and the process is gone',
    async () => {
      replay.enqueue({
        body: chatBody({
          calls: [
            { id: 'call_sleep', name: 'bash', fragments: ['{"command":"echo $$ > shell.pid; sleep 30"}'] },
          ],
        }),
      });
      const page = await browser.newPage();
      await openNewChat(page, 'Cancel chat');
      await send(page, 'Sleep for a while');

      const card = page.locator('article[data-tool="bash"]');
      await card.locator('.call-status', { hasText: 'running…' }).waitFor();
      const pidFile = path.join(project, 'shell.pid');
      let pid = 0;
      for (let attempt = 0; attempt < 100 && pid === 0; attempt += 1) {
        pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim()) || 0;
        if (pid === 0) await Bun.sleep(50);
      }
      expect(pid).toBeGreaterThan(0);
      expect(isAlive(pid)).toBe(true);

      // A reload drops the page's stream, not the turn: the page re-attaches to it.
      await page.reload();
      await page.getByRole('heading', { name: 'Cancel chat', level: 1 }).waitFor();
      await page.locator('article[data-tool="bash"] .call-status', { hasText: 'running…' }).waitFor();
      expect(await page.locator('.message-user').allTextContents()).toEqual(['You: Sleep for a while']);
      expect(await page.locator('article[data-tool="bash"]').count()).toBe(1);
      expect(isAlive(pid)).toBe(true);

      const started = performance.now();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByText('Turn cancelled.').waitFor({ timeout: 10_000 });
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(await card.locator('.call-status').textContent()).toBe('failed: cancelled');
      for (let attempt = 0; attempt < 40 && isAlive(pid); attempt += 1) await Bun.sleep(50);
      expect(isAlive(pid)).toBe(false);
      expect(await page.getByRole('button', { name: 'Send' }).isEnabled()).toBe(true);
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
