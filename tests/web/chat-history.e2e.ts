/**
 * A chat's history in real headless Chromium against the real server: a turn with two tool cards (one
 * with progress messages, one failing), an answer, and a provider error; after a reload the transcript
 * reads exactly as it did live — the same cards, durations, progress, the error once, and each answer's
 * token usage — and the chat's title came from its first message. Renaming in the header persists
 * across a reload and shows in the sidebar; a title the server refuses shows its reason. Screenshots at
 * desktop and phone width go to `test-results/`. Run on its own: `bun test ./tests/web/chat-history.e2e.ts`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import {
  callApi,
  launchTestBrowser,
  PHONE_VIEWPORT,
  SCREENSHOT_DIRECTORY,
  SHORT_DESKTOP_VIEWPORT,
  signIn,
  startWebTestServer,
  type TestBrowser,
  type WebTestServer,
} from '../helpers/web-browser.ts';

const TIMEOUT_MS = 60_000;
let replay: ReplayServer;
let server: WebTestServer;
let browser: TestBrowser;

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register(
    makeTool({
      name: 'make_images',
      execute: async (_args, context) => {
        context.onProgress({ type: 'status', message: 'image 1 of 2 done' });
        await Bun.sleep(30); // fixture: the tool's work between its two progress reports
        context.onProgress({ type: 'status', message: 'image 2 of 2 done' });
        return { images: 2 };
      },
    }),
  );
  tools.register(
    makeTool({
      name: 'upload_images',
      execute: async () => {
        throw new Error('the gallery is full');
      },
    }),
  );
  return tools;
}

const api = (method: string, pathname: string, body?: unknown) => callApi(server, method, pathname, body);

/** What the reader sees of the conversation, entry by entry. */
function transcriptText(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.transcript > *')].map((node) => (node.textContent ?? '').trim()),
  );
}

async function send(page: Page, message: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(message);
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByRole('button', { name: 'Send' }).and(page.locator(':not([disabled])')).waitFor();
}

beforeAll(async () => {
  replay = startReplayServer();
  server = await startWebTestServer({
    environment: { OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1` },
    registry: registry(),
  });
  browser = await launchTestBrowser(server.url);
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await replay?.close();
}, 30_000);

describe('chat history in Chromium', () => {
  test(
    'a reload shows the same cards, durations, error once and usage; the title comes from the first message',
    async () => {
      const created = await api('POST', '/api/chats', { provider: 'openai-compatible', model: 'test-model' });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const page = await browser.newPage(SHORT_DESKTOP_VIEWPORT);
      await signIn(page, server.url, server.token);
      await page.goto(`${server.url}/chats/${encodeURIComponent(id)}`);
      await page.getByRole('heading', { name: 'New chat', level: 1 }).waitFor();

      replay.enqueue(
        {
          body: chatBody({
            text: 'Making them now.',
            calls: [
              { id: 'call_make', name: 'make_images', fragments: ['{}'] },
              { id: 'call_upload', name: 'upload_images', fragments: ['{}'] },
            ],
          }),
        },
        { body: chatBody({ text: 'Two images made; the upload failed.' }) },
        {
          status: 400,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ error: { message: 'model overloaded', type: 'invalid_request_error' } }),
        },
      );
      await send(page, 'Make two images of a mango\nand upload them');
      await page.getByRole('heading', { name: 'Make two images of a mango', level: 1 }).waitFor();
      await send(page, 'Once more');
      expect(replay.failures).toEqual([]);
      const live = await transcriptText(page);
      const cards = page.locator('article[data-tool]');
      expect(await cards.count()).toBe(2);
      const liveDurations = await page.locator('.call-duration').allInnerTexts();
      expect(liveDurations).toHaveLength(2);
      expect(await page.locator('.call-progress li').allInnerTexts()).toHaveLength(2);
      expect(await page.locator('.notice-error').count()).toBe(1);
      expect(await page.locator('.turn-usage').allInnerTexts()).toEqual(['20 tokens in · 10 out']);
      expect(await page.locator('.chat-usage').textContent()).toBe('This chat: 20 tokens in · 10 out');
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-history-live-desktop.png') });

      await page.reload();
      await page.getByText('Two images made; the upload failed.').waitFor();
      expect(await transcriptText(page)).toEqual(live);
      expect(await page.locator('.call-duration').allInnerTexts()).toEqual(liveDurations);
      expect(await page.locator('.notice-error').count()).toBe(1);
      expect(await page.locator('.notice-error').textContent()).toContain('model overloaded');
      expect(await page.locator('.call-progress li').allInnerTexts()).toEqual([
        'image 1 of 2 done',
        'image 2 of 2 done',
      ]);
      expect(await page.locator('.chat-usage').textContent()).toBe('This chat: 20 tokens in · 10 out');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Make two images of a mango');
      const sidebarEntry = page.locator('.chat-link[aria-current="page"]');
      expect(await sidebarEntry.locator('.chat-title').textContent()).toBe('Make two images of a mango');
      expect(await sidebarEntry.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-history-reloaded-desktop.png') });

      const phone = await browser.newPage(PHONE_VIEWPORT);
      await phone.goto(`${server.url}/chats/${encodeURIComponent(id)}`);
      await phone.getByText('Two images made; the upload failed.').waitFor();
      expect(await transcriptText(phone)).toEqual(live);
      await phone.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-history-phone.png') });
      await phone.close();
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'rename in the header persists across a reload; a refused title shows the server’s reason',
    async () => {
      const created = await api('POST', '/api/chats', {
        provider: 'openai-compatible',
        model: 'test-model',
        title: 'Draft',
      });
      const { id } = (await created.json()) as { id: string };
      const page = await browser.newPage(SHORT_DESKTOP_VIEWPORT);
      await signIn(page, server.url, server.token);
      await page.goto(`${server.url}/chats/${encodeURIComponent(id)}`);
      await page.getByRole('heading', { name: 'Draft', level: 1 }).waitFor();

      await page.getByRole('button', { name: 'Rename chat' }).click();
      const field = page.getByRole('textbox', { name: 'Chat title' });
      expect(await field.evaluate((node) => node === document.activeElement)).toBe(true);
      await field.fill('   ');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('alert').filter({ hasText: 'title must not be empty.' }).waitFor();
      expect(await field.getAttribute('aria-invalid')).toBe('true');

      await field.fill('Mango harvest plan');
      await field.press('Enter');
      await page.getByRole('heading', { name: 'Mango harvest plan', level: 1 }).waitFor();
      expect(
        await page
          .getByRole('button', { name: 'Rename chat' })
          .evaluate((node) => node === document.activeElement),
      ).toBe(true);
      await page
        .locator('.chat-link[aria-current="page"] .chat-title', { hasText: 'Mango harvest plan' })
        .waitFor();
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-rename-desktop.png') });

      // Escape leaves the title as it was.
      await page.getByRole('button', { name: 'Rename chat' }).click();
      await page.getByRole('textbox', { name: 'Chat title' }).fill('Not this');
      await page.getByRole('textbox', { name: 'Chat title' }).press('Escape');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Mango harvest plan');

      await page.reload();
      await page.getByRole('heading', { name: 'Mango harvest plan', level: 1 }).waitFor();
      const shown = (await (await api('GET', `/api/chats/${encodeURIComponent(id)}`)).json()) as {
        chat: { title: string };
      };
      expect(shown.chat.title).toBe('Mango harvest plan');

      const phone = await browser.newPage(PHONE_VIEWPORT);
      await phone.goto(`${server.url}/chats/${encodeURIComponent(id)}`);
      await phone.getByRole('heading', { name: 'Mango harvest plan', level: 1 }).waitFor();
      await phone.getByRole('button', { name: 'Rename chat' }).click();
      await phone.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-rename-phone.png') });
      await phone.close();
      await page.close();
    },
    TIMEOUT_MS,
  );
});
