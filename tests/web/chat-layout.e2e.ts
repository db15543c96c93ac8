/**
 * The chat page's layout and front matter in real headless Chromium against the real server: the
 * document is exactly as tall as the window at desktop (1280×860) and phone width, with the Send button
 * fully on screen; on a phone the chat list is a drawer that opens and closes by keyboard; an unknown
 * address gets the app's not-found view with status 404; a server with no provider names the variables
 * to set; the model list comes from the provider's `/v1/models` and the last choice is preselected after
 * a reload. It also measures the initial JavaScript (gzipped) and the longest main-thread stall while a
 * 200 KB answer streams in 2,000 deltas, and prints both. Screenshots go to `test-results/`.
 * Run on its own: `bun test ./tests/web/chat-layout.e2e.ts`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { bigMarkdownAnswerPieces } from '../helpers/big-markdown-answer.ts';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { chatTextDeltasBody } from '../helpers/scripted-provider-streams.ts';
import {
  callApi,
  launchTestBrowser,
  openChatOptions,
  PHONE_VIEWPORT,
  recordMainThread,
  SCREENSHOT_DIRECTORY,
  SHORT_DESKTOP_VIEWPORT,
  signIn,
  startWebTestServer,
  type TestBrowser,
  type WebTestServer,
  waitForWholeAnswer,
} from '../helpers/web-browser.ts';

const TIMEOUT_MS = 90_000;
let replay: ReplayServer;
let server: WebTestServer;
let browser: TestBrowser;

const api = (method: string, pathname: string, body?: unknown) => callApi(server, method, pathname, body);

/** A chat created through the API with one long answer in its history, so every pane overflows. */
async function longChat(title: string): Promise<string> {
  const created = await api('POST', '/api/chats', {
    provider: 'openai-compatible',
    model: 'test-model',
    title,
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const paragraphs = Array.from({ length: 60 }, (_, index) => `Paragraph ${index + 1} of a long answer.\n\n`);
  replay.enqueue({ body: chatTextDeltasBody(paragraphs) });
  const turn = await api('POST', `/api/chats/${id}/turns`, { message: 'Write a lot.' });
  expect(turn.status).toBe(200);
  expect(await turn.text()).toContain('"type":"done"');
  return id;
}

/** Resolves once the element's running transitions (the drawer's slide) have ended. */
function transitionsEnded(element: Locator): Promise<void> {
  return element.evaluate(async (node) => {
    await Promise.all(node.getAnimations().map((animation) => animation.finished));
  });
}

/** Heights of the document and the window, and where the Send button is. */
async function measureLayout(page: Page) {
  return page.evaluate(() => {
    const send = [...document.querySelectorAll('button')].find((button) => button.textContent === 'Send');
    const box = send?.getBoundingClientRect();
    return {
      documentHeight: document.documentElement.scrollHeight,
      bodyHeight: document.body.scrollHeight,
      windowHeight: window.innerHeight,
      send: box ? { top: box.top, bottom: box.bottom, left: box.left, right: box.right } : undefined,
      windowWidth: window.innerWidth,
    };
  });
}

async function expectWindowTall(page: Page, viewport: { width: number; height: number }) {
  const layout = await measureLayout(page);
  expect(layout.documentHeight).toBe(viewport.height);
  expect(layout.bodyHeight).toBe(viewport.height);
  expect(layout.windowHeight).toBe(viewport.height);
  expect(layout.send).toBeDefined();
  expect(layout.send!.top).toBeGreaterThanOrEqual(0);
  expect(layout.send!.bottom).toBeLessThanOrEqual(viewport.height);
  expect(layout.send!.left).toBeGreaterThanOrEqual(0);
  expect(layout.send!.right).toBeLessThanOrEqual(viewport.width);
  // Scrolling the document (wheel over the page, or a script) cannot move the app.
  await page.mouse.move(40, viewport.height / 2);
  await page.mouse.wheel(0, 3000);
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
}

beforeAll(async () => {
  replay = startReplayServer();
  server = await startWebTestServer({ environment: { OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1` } });
  browser = await launchTestBrowser(server.url);
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await replay?.close();
}, 30_000);

describe('chat layout in Chromium', () => {
  test(
    'desktop 1280×860: the document is the window’s height, the transcript scrolls inside, Send is on screen',
    async () => {
      const id = await longChat('Long chat');
      const page = await browser.newPage(SHORT_DESKTOP_VIEWPORT);
      await signIn(page, server.url, server.token);
      await page.goto(`${server.url}/chats/${id}`);
      await page.getByText('Paragraph 60 of a long answer.').waitFor();
      await expectWindowTall(page, SHORT_DESKTOP_VIEWPORT);
      const transcript = await page.evaluate(() => {
        const log = document.querySelector('.transcript')!;
        return { scrollHeight: log.scrollHeight, clientHeight: log.clientHeight };
      });
      expect(transcript.scrollHeight).toBeGreaterThan(transcript.clientHeight);
      expect(await page.getByRole('button', { name: '☰ Chats' }).isVisible()).toBe(false);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-layout-desktop.png') });
      // The tools page, much longer than the window, scrolls inside its pane too.
      await page.goto(`${server.url}/tools`);
      await page.getByRole('heading', { name: 'Tools', level: 1 }).waitFor();
      const tools = await measureLayout(page);
      expect(tools.documentHeight).toBe(SHORT_DESKTOP_VIEWPORT.height);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'phone width: the window’s height too, and the chat list is a drawer that opens and closes by keyboard',
    async () => {
      const id = await longChat('Phone chat');
      const page = await browser.newPage(PHONE_VIEWPORT);
      await signIn(page, server.url, server.token);
      await page.goto(`${server.url}/chats/${id}`);
      await page.getByText('Paragraph 60 of a long answer.').waitFor();
      await expectWindowTall(page, PHONE_VIEWPORT);
      const toggle = page.getByRole('button', { name: '☰ Chats' });
      const list = page.getByRole('navigation', { name: 'Chats' });
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      expect(await list.isVisible()).toBe(false);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-layout-phone.png') });

      await toggle.focus();
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Close the chat list' }).waitFor();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      expect(await list.isVisible()).toBe(true);
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
        'Close the chat list',
      );
      await page.getByRole('link', { name: /Phone chat/ }).waitFor();
      await transitionsEnded(list);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-layout-phone-drawer.png') });
      await expectWindowTall(page, PHONE_VIEWPORT);

      await page.keyboard.press('Escape');
      await page.waitForFunction(() => !document.querySelector('.chat-layout.drawer-open'));
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('☰ Chats');
      // Hidden once it has slid out (its visibility changes at the end of the slide).
      await transitionsEnded(list);
      expect(await list.isVisible()).toBe(false);

      // Space opens it as well, and the close button (by keyboard) closes it.
      await page.keyboard.press('Space');
      await page.getByRole('button', { name: 'Close the chat list' }).waitFor();
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => !document.querySelector('.chat-layout.drawer-open'));
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('☰ Chats');
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'the model list comes from /v1/models, and the last provider+model is preselected after a reload',
    async () => {
      replay.enqueue({
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          object: 'list',
          data: ['zeta-model', 'alpha-model'].map((id) => ({
            id,
            object: 'model',
            created: 0,
            owned_by: 'x',
          })),
        }),
      });
      const page = await browser.newPage(SHORT_DESKTOP_VIEWPORT);
      await signIn(page, server.url, server.token);
      await page.goto(`${server.url}/chats`);
      await page.getByRole('heading', { name: 'New chat', level: 1 }).waitFor();
      await openChatOptions(page);
      await page.getByText('2 models listed by openai-compatible; pick one or type any name.').waitFor();
      expect(
        await page
          .locator('datalist option')
          .evaluateAll((options) => options.map((o) => o.getAttribute('value'))),
      ).toEqual(['alpha-model', 'zeta-model']);
      expect(replay.requests.at(-1)?.path).toBe('/v1/models');
      await page.getByLabel('Model').fill('zeta-model');
      await page.getByLabel('Title (optional)').fill('Picked chat');
      await page.getByLabel('System prompt (optional)').fill('Answer in one sentence.');
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'new-chat-models-desktop.png') });
      await page.getByRole('button', { name: 'Create chat' }).click();
      await page.getByRole('heading', { name: 'Picked chat', level: 1 }).waitFor();
      const chatId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!);
      const stored = (await (await api('GET', `/api/chats/${chatId}`)).json()) as {
        chat: { systemPrompt: string | null; model: string };
      };
      expect(stored.chat.systemPrompt).toBe('Answer in one sentence.');
      expect(stored.chat.model).toBe('zeta-model');
      expect(await (await api('GET', '/api/preferences/chat-model')).json()).toMatchObject({
        chatModel: { provider: 'openai-compatible', model: 'zeta-model' },
      });

      const requestsBefore = replay.requests.length;
      await page.goto(`${server.url}/chats`);
      await page.reload();
      await page.getByRole('heading', { name: 'New chat', level: 1 }).waitFor();
      await openChatOptions(page);
      await page.getByText('2 models listed by openai-compatible; pick one or type any name.').waitFor();
      expect(await page.getByLabel('Provider').inputValue()).toBe('openai-compatible');
      expect(await page.getByLabel('Model').inputValue()).toBe('zeta-model');
      // Served from the server's cache: the provider was not asked again.
      expect(replay.requests.length).toBe(requestsBefore);
      const phone = await browser.newPage(PHONE_VIEWPORT);
      await phone.goto(`${server.url}/chats`);
      await phone.getByRole('heading', { name: 'New chat', level: 1 }).waitFor();
      await phone.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'new-chat-models-phone.png') });
      expect((await measureLayout(phone)).documentHeight).toBe(PHONE_VIEWPORT.height);
      await phone.close();
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'an unknown address gets the app with status 404 and its not-found view',
    async () => {
      const page = await browser.newPage(SHORT_DESKTOP_VIEWPORT);
      await signIn(page, server.url, server.token);
      const response = await page.goto(`${server.url}/settings/nowhere`);
      expect(response?.status()).toBe(404);
      expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
      await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
      expect(await page.locator('main code').textContent()).toBe('/settings/nowhere');
      expect(await page.title()).toBe('Not found — Mango');
      expect(await page.evaluate(() => (document.body.textContent ?? '').includes('"code"'))).toBe(false);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'not-found-desktop.png') });
      await page.getByRole('link', { name: 'Go to your chats' }).click();
      await page.getByRole('heading', { name: 'New chat', level: 1 }).waitFor();
      // The favicon is served from the build.
      const icon = await fetch(`${server.url}/favicon.svg`);
      expect(icon.status).toBe(200);
      expect(icon.headers.get('content-type')).toBe('image/svg+xml');
      expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon.svg');
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'measured: initial JavaScript gzipped, and the longest main-thread stall while 200 KB streams in 2,000 deltas',
    async () => {
      const webDirectory = server.server.deps.config.webDirectory!;
      const appJs = await readFile(path.join(webDirectory, 'app.js'));
      const gzipped = Bun.gzipSync(appJs).byteLength;
      console.log(`initial JavaScript: app.js ${appJs.byteLength} bytes, ${gzipped} bytes gzipped`);
      expect(gzipped).toBeLessThanOrEqual(150 * 1024);

      const pieces = bigMarkdownAnswerPieces();
      expect(pieces.join('').length).toBe(200_000);
      replay.enqueue({ body: chatTextDeltasBody(pieces) });
      const created = await api('POST', '/api/chats', {
        provider: 'openai-compatible',
        model: 'test-model',
        title: 'Big answer',
      });
      const { id } = (await created.json()) as { id: string };
      const page = await browser.newPage(SHORT_DESKTOP_VIEWPORT);
      await signIn(page, server.url, server.token);
      await page.goto(`${server.url}/chats/${id}`);
      await page.getByRole('heading', { name: 'Big answer', level: 1 }).waitFor();
      const stopRecording = await recordMainThread(page);
      await page.getByLabel('Message').fill('Stream a big answer.');
      await page.getByLabel('Message').press('Enter');
      await waitForWholeAnswer(page, 'Sentence 1999', 60_000);
      const measured = await stopRecording();
      console.log(
        `200 KB in 2,000 deltas: longest long task ${measured.longestTask.toFixed(0)} ms (${measured.longTasks} tasks over 50 ms), longest gap between frames ${measured.longestFrameGap.toFixed(0)} ms`,
      );
      await expectWindowTall(page, SHORT_DESKTOP_VIEWPORT);
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );
});

describe('a server with no provider', () => {
  test(
    'the new-chat page names the variables to set and the docs page to read',
    async () => {
      const bare = await startWebTestServer();
      const bareBrowser = await launchTestBrowser(bare.url);
      try {
        for (const [viewport, name] of [
          [SHORT_DESKTOP_VIEWPORT, 'desktop'],
          [PHONE_VIEWPORT, 'phone'],
        ] as const) {
          const page = await bareBrowser.newPage(viewport);
          await signIn(page, bare.url, bare.token);
          await page.goto(`${bare.url}/chats`);
          await page.getByRole('heading', { name: 'Set up a model provider', level: 1 }).waitFor();
          const variables = await page.locator('.provider-setup-list code').allTextContents();
          expect(variables).toEqual([
            'OPENAI_API_KEY',
            'OPENAI_COMPATIBLE_BASE_URL',
            'GEMINI_API_KEY',
            'GEMINI_API_KEY',
            'ANTHROPIC_API_KEY',
          ]);
          expect(await page.locator('.provider-setup').textContent()).toContain('docs/providers.md');
          expect(await page.getByRole('button', { name: 'Create chat' }).count()).toBe(0);
          await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, `no-provider-${name}.png`) });
          await page.close();
        }
      } finally {
        await bareBrowser.close();
        await bare.stop();
      }
    },
    TIMEOUT_MS,
  );
});
