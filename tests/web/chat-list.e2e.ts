/**
 * The chat list in real headless Chromium against the real server: chats under date groups in order
 * of last activity, titles on up to two lines and the model once; the search box finds a word of a
 * message body and shows its excerpt with the word marked, while HTML in the message stays text and
 * never runs; pin moves a chat to the top, archive moves it to the archived list and back; the actions
 * export the chat as Markdown and JSON downloads. A screenshot of the list goes to `test-results/`.
 * Run on its own: `bun test ./tests/web/chat-list.e2e.ts`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { DatabaseChatRepository } from '../../src/db/database-chat-repository.ts';
import {
  callApi,
  launchTestBrowser,
  SCREENSHOT_DIRECTORY,
  SHORT_DESKTOP_VIEWPORT,
  signIn,
  startWebTestServer,
  type TestBrowser,
  type WebTestServer,
} from '../helpers/web-browser.ts';

const TIMEOUT_MS = 60_000;
const LONG_TITLE =
  'Planning the quarterly infrastructure migration for the payments cluster and its replicas';
const HOSTILE = '<img src=x onerror="window.__xss=1"> the zanzibar <b>plan</b>';
let server: WebTestServer;
let browser: TestBrowser;
const ids: Record<string, string> = {};

async function createChat(title: string): Promise<string> {
  const response = await callApi(server, 'POST', '/api/chats', { provider: 'openai', model: 'gpt-x', title });
  return ((await response.json()) as { id: string }).id;
}

beforeAll(async () => {
  server = await startWebTestServer();
  browser = await launchTestBrowser(server.url);
  const repository = new DatabaseChatRepository(server.server.database);
  const { sql } = server.server.database;
  const day = 24 * 60 * 60 * 1000;
  ids.old = await createChat('Old notes');
  await sql`UPDATE chats SET last_activity_at = ${new Date(Date.now() - 30 * day).toISOString()} WHERE id = ${ids.old}`;
  ids.yesterday = await createChat('Yesterday chat');
  await sql`UPDATE chats SET last_activity_at = ${new Date(Date.now() - day).toISOString()} WHERE id = ${ids.yesterday}`;
  ids.long = await createChat(LONG_TITLE);
  ids.hostile = await createChat('Travel');
  await repository.appendMessage(ids.hostile, { type: 'user_text', text: HOSTILE }, new Date().toISOString());
  ids.today = await createChat('Fresh chat');
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function openChats(): Promise<Page> {
  const page = await browser.newPage(SHORT_DESKTOP_VIEWPORT);
  await signIn(page, server.url, server.token);
  await page.goto(`${server.url}/chats`);
  await page.locator('.chat-group-heading').first().waitFor();
  return page;
}

const entry = (page: Page, id: string) => page.locator(`.chat-entry[data-chat-id="${id}"]`);

describe('the chat list', () => {
  test(
    'date groups in order of activity, two-line titles, the model once',
    async () => {
      const page = await openChats();
      expect(await page.locator('.chat-group-heading').allTextContents()).toEqual([
        'Today',
        'Yesterday',
        'Older',
      ]);
      expect(await page.locator('.chat-list-body .chat-entry .chat-title').allTextContents()).toEqual([
        'Fresh chat',
        'Travel',
        LONG_TITLE,
        'Yesterday chat',
        'Old notes',
      ]);
      const title = entry(page, ids.long!).locator('.chat-title');
      const box = await title.evaluate((element) => {
        const style = getComputedStyle(element);
        return {
          lines: Math.round(element.getBoundingClientRect().height / Number.parseFloat(style.lineHeight)),
          clamp: style.webkitLineClamp,
        };
      });
      expect(box).toEqual({ lines: 2, clamp: '2' });
      const meta = await entry(page, ids.today!).locator('.chat-meta').textContent();
      expect(meta).toMatch(/^\d{2}:\d{2}( [AP]M)? · gpt-x$/);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-list-desktop.png') });
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'the search box finds a word of a message body; HTML in it stays text',
    async () => {
      const page = await openChats();
      await page.getByRole('searchbox', { name: 'Search chats' }).fill('zanzib');
      const result = page.locator('.chat-search-result');
      await result.first().waitFor();
      expect(await result.count()).toBe(1);
      expect(await result.locator('.chat-title').textContent()).toBe('Travel');
      expect(await result.locator('.chat-snippet').textContent()).toBe(`You: ${HOSTILE}`);
      expect(await result.locator('mark').allTextContents()).toEqual(['zanzibar']);
      expect(await result.locator('img, b').count()).toBe(0);
      expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
      await page.getByRole('searchbox', { name: 'Search chats' }).fill('nothing-like-this');
      await page.getByText('No chat matches “nothing-like-this”.').waitFor();
      await page.getByRole('searchbox', { name: 'Search chats' }).fill('zanzibar');
      await result.first().waitFor();
      await result.locator('a').click();
      await page.waitForURL(`${server.url}/chats/${ids.hostile}`);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'pin moves a chat to the top; archive moves it to the archived list and back',
    async () => {
      const page = await openChats();
      await entry(page, ids.old!).locator('summary').click();
      await entry(page, ids.old!).getByRole('button', { name: 'Pin' }).click();
      await page.locator('.chat-group-heading', { hasText: 'Pinned' }).waitFor();
      expect(await page.locator('.chat-list-body .chat-entry .chat-title').first().textContent()).toBe(
        'Old notes',
      );

      await entry(page, ids.yesterday!).locator('summary').click();
      await entry(page, ids.yesterday!).getByRole('button', { name: 'Archive' }).click();
      await entry(page, ids.yesterday!).waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Archived chats' }).click();
      await page.locator('.chat-group-heading', { hasText: 'Archived' }).waitFor();
      expect(await page.locator('.chat-list-body .chat-entry .chat-title').allTextContents()).toEqual([
        'Yesterday chat',
      ]);
      await entry(page, ids.yesterday!).locator('summary').click();
      await entry(page, ids.yesterday!).getByRole('button', { name: 'Unarchive' }).click();
      await page.getByText('No archived chats.').waitFor();
      await page.getByRole('button', { name: '← Back to chats' }).click();
      await entry(page, ids.yesterday!).waitFor();
      const listed = (await (await callApi(server, 'GET', '/api/chats')).json()) as {
        chats: { id: string; pinnedAt: string | null; archivedAt: string | null }[];
      };
      expect(listed.chats.find((chat) => chat.id === ids.old)?.pinnedAt).toBeString();
      expect(listed.chats.find((chat) => chat.id === ids.yesterday)?.archivedAt).toBeNull();
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'export downloads the chat as Markdown and as JSON',
    async () => {
      const page = await openChats();
      const travel = entry(page, ids.hostile!);
      await travel.locator('summary').click();
      const [markdown] = await Promise.all([
        page.waitForEvent('download'),
        travel.getByRole('button', { name: 'Export Markdown' }).click(),
      ]);
      expect(markdown.suggestedFilename()).toBe('Travel.md');
      const text = await readFile((await markdown.path())!, 'utf8');
      expect(text.startsWith('# Travel\n\n- Model: gpt-x (openai)\n')).toBe(true);
      expect(text).toContain(`\n\n${HOSTILE}\n`);
      const [json] = await Promise.all([
        page.waitForEvent('download'),
        travel.getByRole('button', { name: 'Export JSON' }).click(),
      ]);
      expect(json.suggestedFilename()).toBe('Travel.json');
      const exported = JSON.parse(await readFile((await json.path())!, 'utf8')) as {
        format: string;
        messages: { item: unknown }[];
      };
      expect(exported.format).toBe('mango-chat');
      expect(exported.messages.map((message) => message.item)).toEqual([
        { type: 'user_text', text: HOSTILE },
      ]);
      await page.close();
    },
    TIMEOUT_MS,
  );
});
