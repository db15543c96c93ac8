/**
 * The Chat page in real headless Chromium against the real server, whose OpenAI-compatible provider
 * (the official SDK) talks to a scripted replay server on 127.0.0.1: a turn streams a bash tool card
 * and the final text, the history survives a reload, a reload during a running shell call re-attaches
 * to the turn (the call keeps running), and Cancel really stops it (its process is gone); an answer
 * streamed in small deltas renders as markdown (a table, highlighted code with a copy button) while its
 * script payloads run nothing; only the server's own image shows inline, and Copy works without the
 * clipboard API. Screenshots at desktop and phone width. Run by `npm run test:e2e`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { liveProcessesWith } from '../helpers/live-processes.ts';
import { type ReplayServer, sseFromEvents, startReplayServer } from '../helpers/replay-server.ts';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { defaultToolRegistry, ToolRegistry } from '../../src/tools/registry.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import { openToolCall } from '../helpers/tool-call-card.ts';
import { waitUntil } from '../helpers/wait-until.ts';
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

const api = (method: string, pathname: string, body?: unknown) => callApi(server, method, pathname, body);

beforeAll(async () => {
  replay = startReplayServer();
  server = await startWebTestServer({
    environment: { OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1` },
    registry: registryWithImageStandIn(),
  });
  project = path.join(server.root, 'project');
  await mkdir(project);
  // Approvals have their own browser test; here bash runs without asking.
  expect(
    (await api('PUT', '/api/settings/tools/bash', { enabled: true, parameters: { approval: 'never' } }))
      .status,
  ).toBe(200);
  browser = await launchTestBrowser(server.url);
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await replay?.close();
}, 30_000);

/** A chat bound to `project`, created through the API (the form itself: new-chat-form.e2e.ts), opened. */
async function openNewChat(page: Page, title: string): Promise<void> {
  const response = await api('POST', '/api/chats', {
    provider: 'openai-compatible',
    model: 'test-model',
    title,
    workingDirectory: project,
  });
  expect(response.status).toBe(201);
  const { id } = (await response.json()) as { id: string };
  await signIn(page, server.url, server.token);
  await page.goto(`${server.url}/chats/${encodeURIComponent(id)}`);
  await page.getByRole('heading', { name: title, level: 1 }).waitFor();
}

/** A Chat Completions answer streamed as `pieces`, one content delta each. */
function streamedTextBody(pieces: string[]): string {
  const chunk = (delta: unknown, finishReason: string | null = null) => ({
    id: 'chatcmpl-md',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'test-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  return sseFromEvents(
    [
      chunk({ role: 'assistant', content: '' }),
      ...pieces.map((content) => chunk({ content })),
      chunk({}, 'stop'),
    ],
    { done: true },
  );
}

const CODE = 'const total: number = 15;\nconsole.log(total);';
const MARKDOWN_ANSWER = [
  '## Results',
  '',
  '| file | lines |',
  '|------|------:|',
  '| a.ts | 12 |',
  '| b.ts | 3 |',
  '',
  '```ts',
  CODE,
  '```',
  '',
  '| payload | kind |',
  '|---|---|',
  '| <script>window.__pwned = "script"</script> | raw script |',
  '| <img src=x onerror="window.__pwned = \'img\'"> | img onerror |',
  "| [click me](javascript:window.__pwned='link') | javascript link |",
  '| <svg onload="window.__pwned = \'svg\'"></svg> | svg |',
  '| ![tracker](https://tracker.example/pixel.png) | external image |',
  '| ![inline](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+) | data image |',
  '',
  '```"><img src=x onerror="window.__pwned=\'fence\'">',
  '<b>not bold</b>',
  '```',
  '',
  'All **done**.',
].join('\n');

/** `text` cut into pieces of `size` characters, as a model streams it. */
function piecesOf(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
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
      // One line, folded: it opens to the card, whose Arguments stay folded.
      expect(await card.locator('.call-summary').textContent()).toBe('echo hello-from-bash');
      expect(await card.locator('.call-result').isVisible()).toBe(false);
      await card.locator('summary.call-header').click();
      expect(await card.locator('details.call-arguments').getAttribute('open')).toBeNull();
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
      await reloadedCard.locator('summary.call-header').click();
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

      // Called together, so one group, folded to its summary line until opened.
      const group = page.locator('.call-group', { has: page.locator('article[data-tool="read_file"]') });
      expect(await group.locator('.call-group-summary').textContent()).toBe('2 tool calls: read_file, grep');
      const read = page.locator('article[data-tool="read_file"]');
      await openToolCall(read);
      expect(await read.locator('.result-caption').textContent()).toBe(
        'notes.txt — lines 1–3 of 3, 29 bytes',
      );
      expect(await read.locator('.file-content').textContent()).toBe(
        '     1\tfirst line\n     2\tmango season\n     3\tlast',
      );

      const grep = page.locator('article[data-tool="grep"]');
      await openToolCall(grep);
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
    'a markdown answer streamed in small deltas renders a table and highlighted code with a copy button; its payloads run nothing',
    async () => {
      replay.enqueue({ body: streamedTextBody(piecesOf(MARKDOWN_ANSWER, 7)) });
      await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      const page = await browser.newPage();
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await openNewChat(page, 'Markdown chat');
      await page.evaluate(() => {
        const record = window as unknown as { __violations: string[] };
        record.__violations = [];
        document.addEventListener('securitypolicyviolation', (event) => {
          record.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
        });
      });
      await send(page, 'Summarize the changes');
      const answer = page.locator('.message-assistant .markdown-body');
      await answer.getByText('done', { exact: true }).waitFor();

      expect(await answer.getByRole('heading', { level: 2 }).textContent()).toBe('Results');
      const table = answer.locator('table').first();
      expect(await table.locator('th').allTextContents()).toEqual(['file', 'lines']);
      expect(
        await table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.textContent?.trim())),
      ).toEqual(['a.ts\n12', 'b.ts\n3']);
      const code = answer.locator('code.language-typescript');
      await code.locator('.hljs-keyword').first().waitFor();
      expect(await code.textContent()).toBe(`${CODE}\n`);
      expect(await code.locator('.hljs-keyword').first().textContent()).toBe('const');

      const copy = answer.locator('.markdown-code').first().getByRole('button', { name: 'Copy' });
      await copy.click();
      await answer.getByRole('button', { name: 'Copied' }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${CODE}\n`);

      // The payloads: shown as text, none ran, nothing was blocked because nothing tried.
      const payloads = answer.locator('table').nth(1);
      expect(await payloads.locator('td').first().textContent()).toBe(
        '<script>window.__pwned = "script"</script>',
      );
      expect(await answer.locator('script, svg, iframe, img').count()).toBe(0);
      expect(await answer.locator('a[href^="javascript"], a[href^="data"]').count()).toBe(0);
      const tracker = answer.getByRole('link', { name: 'tracker' });
      expect(await tracker.getAttribute('href')).toBe('https://tracker.example/pixel.png');
      expect(await tracker.getAttribute('target')).toBe('_blank');
      expect(await tracker.getAttribute('rel')).toBe('noopener noreferrer');
      expect(await answer.locator('.markdown-code').nth(1).locator('code').textContent()).toBe(
        '<b>not bold</b>\n',
      );
      expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
      expect(
        await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations),
      ).toEqual([]);
      expect(dialogs).toEqual([]);

      await page.screenshot({
        path: path.join(SCREENSHOT_DIRECTORY, 'chat-markdown-desktop.png'),
        fullPage: true,
      });
      await page.setViewportSize(PHONE_VIEWPORT);
      await page.screenshot({
        path: path.join(SCREENSHOT_DIRECTORY, 'chat-markdown-phone.png'),
        fullPage: true,
      });

      // From history after a reload: the same rendering, highlighted once the language loads.
      await page.reload();
      const stored = page.locator('.message-assistant .markdown-body');
      await stored.locator('code.language-typescript .hljs-keyword').first().waitFor();
      expect(await stored.locator('table').first().locator('th').allTextContents()).toEqual([
        'file',
        'lines',
      ]);
      expect(await stored.locator('script, svg, iframe, img').count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
      expect(replay.failures).toEqual([]);
      expect(browser.offOriginRequests).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    "only the server's own image renders inline (fetched with the token); without the clipboard API, Copy still copies",
    async () => {
      const owner = await server.server.deps.users.findByName('web-tester');
      const imagePath = path.join(server.root, 'stored-image.png');
      const png = Buffer.from(PNG_BASE64, 'base64');
      await writeFile(imagePath, png);
      await server.server.deps.images.save({
        id: 'img-markdown-1',
        userId: owner!.id,
        chatId: undefined,
        model: 'test-image',
        prompt: 'a mango',
        mimeType: 'image/png',
        filePath: imagePath,
        byteLength: png.length,
        createdAt: 0,
      });
      const answer = [
        'Here it is:',
        '',
        '![a stored mango](/api/images/img-markdown-1)',
        '',
        '![a remote mango](https://images.example/mango.png)',
        '',
        '```',
        'echo copied-by-fallback',
        '```',
      ].join('\n');
      replay.enqueue({ body: streamedTextBody(piecesOf(answer, 5)) });
      await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      const page = await browser.newPage();
      await openNewChat(page, 'Image markdown chat');
      await page.evaluate(() => {
        Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined, configurable: true });
      });
      await send(page, 'Show the mango');
      const body = page.locator('.message-assistant .markdown-body');
      await body.locator('.markdown-code').waitFor();

      const image = body.locator('img');
      await page.waitForFunction(
        () => (document.querySelector('.markdown-body img') as HTMLImageElement | null)?.naturalWidth === 1,
      );
      expect(await image.count()).toBe(1);
      expect(await image.getAttribute('alt')).toBe('a stored mango');
      expect(await image.getAttribute('src')).toMatch(/^blob:/);
      const remote = body.getByRole('link', { name: 'a remote mango' });
      expect(await remote.getAttribute('href')).toBe('https://images.example/mango.png');

      await body.getByRole('button', { name: 'Copy' }).click();
      await body.getByRole('button', { name: 'Copied' }).waitFor();
      const reader = await browser.newPage();
      await reader.goto(`${server.url}/tools`);
      expect(await reader.evaluate(() => navigator.clipboard.readText())).toBe('echo copied-by-fallback\n');
      await reader.close();
      expect(replay.failures).toEqual([]);
      expect(browser.offOriginRequests).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'Cancel stops a running shell call: the card says cancelled and the process is gone',
    async () => {
      // The command runs in the shell sandbox's own PID namespace, so it is found by its command line.
      const marker = `30.${String(Date.now() % 100_000).padStart(5, '0')}5`;
      replay.enqueue({
        body: chatBody({
          calls: [
            { id: 'call_sleep', name: 'bash', fragments: [JSON.stringify({ command: `sleep ${marker}` })] },
          ],
        }),
      });
      const page = await browser.newPage();
      await openNewChat(page, 'Cancel chat');
      await send(page, 'Sleep for a while');

      const card = page.locator('article[data-tool="bash"]');
      await card.locator('.call-status', { hasText: 'running…' }).waitFor();
      await waitUntil(async () => (await liveProcessesWith(marker)).length > 0, 5_000);
      expect((await liveProcessesWith(marker)).length).toBeGreaterThan(0);

      // A reload drops the page's stream, not the turn: the page re-attaches to it.
      await page.reload();
      await page.getByRole('heading', { name: 'Cancel chat', level: 1 }).waitFor();
      await page.locator('article[data-tool="bash"] .call-status', { hasText: 'running…' }).waitFor();
      expect(await page.locator('.message-user').allTextContents()).toEqual(['You: Sleep for a while']);
      expect(await page.locator('article[data-tool="bash"]').count()).toBe(1);
      expect((await liveProcessesWith(marker)).length).toBeGreaterThan(0);

      const started = performance.now();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByText('The turn was cancelled.').waitFor({ timeout: 10_000 });
      expect(performance.now() - started).toBeLessThan(10_000);
      // Said once: no second notice of our own beside the server's.
      expect(await page.locator('.notice').allTextContents()).toEqual(['The turn was cancelled.']);
      expect(await card.locator('.call-status').textContent()).toBe('failed: cancelled');
      await waitUntil(async () => (await liveProcessesWith(marker)).length === 0, 2_000);
      expect(await liveProcessesWith(marker)).toEqual([]);
      expect(await page.getByRole('button', { name: 'Send' }).isEnabled()).toBe(true);
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );
});
