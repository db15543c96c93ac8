/**
 * The open chat's system prompt in real headless Chromium at 1280×860 against the real server, whose
 * OpenAI-compatible provider is a scripted replay server: the header's button opens the prompt by
 * keyboard, Escape closes it without a change and without stopping the running turn, Ctrl+Enter saves,
 * the next turn sends the new prompt, a refusal keeps the text with the server's reason, and an empty
 * prompt removes it; on a phone the button sits on the model's line. The screenshot goes to
 * `test-results/`. Run by `npm run test:e2e`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { chatTextDeltasBody } from '../helpers/scripted-provider-streams.ts';
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

const api = (method: string, pathname: string, body?: unknown) => callApi(server, method, pathname, body);

async function storedPrompt(chatId: string): Promise<string | null> {
  const shown = (await (await api('GET', `/api/chats/${chatId}`)).json()) as {
    chat: { systemPrompt: string | null };
  };
  return shown.chat.systemPrompt;
}

/** The system message of the provider's last chat request. */
function lastSystemMessage(): string | undefined {
  const posts = replay.requests.filter((request) => request.method === 'POST');
  const body = posts.at(-1)?.body as { messages?: { role: string; content?: unknown }[] } | undefined;
  const system = body?.messages?.find((message) => message.role === 'system');
  return typeof system?.content === 'string' ? system.content : undefined;
}

async function focusedLabel(page: Page): Promise<string | null | undefined> {
  return page.evaluate(() => {
    const focused = document.activeElement as HTMLElement | null;
    return focused?.getAttribute('name') ?? focused?.textContent;
  });
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

describe('the system prompt on the chat page in Chromium', () => {
  test(
    'seen and edited by keyboard from the header; the next turn sends it; Escape there does not stop the turn',
    async () => {
      const created = await api('POST', '/api/chats', {
        provider: 'openai-compatible',
        model: 'test-model',
        title: 'Prompted chat',
        systemPrompt: 'Answer briefly.',
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const page = await browser.newPage(SHORT_DESKTOP_VIEWPORT);
      await signIn(page, server.url, server.token);
      await page.goto(`${server.url}/chats/${id}`);
      await page.getByRole('heading', { name: 'Prompted chat', level: 1 }).waitFor();

      const toggle = page.getByRole('button', { name: 'System prompt', exact: true });
      const panel = page.getByRole('form', { name: 'System prompt' });
      const field = page.getByLabel('System prompt of this chat');
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      expect(await panel.isVisible()).toBe(false);

      // A turn is running (held mid-answer) while the prompt is opened and edited.
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      replay.enqueue({
        body: chatTextDeltasBody(['First part. ', 'Second part.']),
        pause: { afterChunks: 2, until: held },
      });
      await page.getByLabel('Message').fill('Hello');
      await page.getByLabel('Message').press('Enter');
      await page.locator('.message-assistant').getByText('First part.').waitFor();
      expect(lastSystemMessage()?.endsWith('\n\nAnswer briefly.')).toBe(true);

      await toggle.focus();
      await page.keyboard.press('Enter');
      await panel.waitFor();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      expect(await field.inputValue()).toBe('Answer briefly.');
      expect(await focusedLabel(page)).toBe('systemPrompt');
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-system-prompt-desktop.png') });
      await page.keyboard.type(' Unsaved.');
      await page.keyboard.press('Escape');
      await panel.waitFor({ state: 'hidden' });
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      expect(await focusedLabel(page)).toBe('System prompt');
      expect(await storedPrompt(id)).toBe('Answer briefly.');
      // That Escape closed the panel only: the turn runs on (its Cancel is still offered).
      expect(await page.locator('.composer').getByRole('button', { name: 'Cancel' }).isVisible()).toBe(true);

      // Space opens it again, with the stored text (the unsaved edit is gone); Ctrl+Enter saves.
      await page.keyboard.press('Space');
      await panel.waitFor();
      expect(await field.inputValue()).toBe('Answer briefly.');
      await field.fill('  Answer in French.\n');
      await page.keyboard.press('Control+Enter');
      await panel.waitFor({ state: 'hidden' });
      expect(await focusedLabel(page)).toBe('System prompt');
      expect(await storedPrompt(id)).toBe('Answer in French.');
      release();
      await page.locator('.message-assistant').getByText('First part. Second part.').waitFor();
      await page.getByRole('button', { name: 'Send' }).and(page.locator(':not([disabled])')).waitFor();
      expect(await page.locator('.message-assistant').last().textContent()).toContain(
        'First part. Second part.',
      );

      replay.enqueue({ body: chatTextDeltasBody(['Bonjour.']) });
      await page.getByLabel('Message').fill('Again');
      await page.getByLabel('Message').press('Enter');
      await page.locator('.message-assistant').getByText('Bonjour.').waitFor();
      expect(lastSystemMessage()?.endsWith('\n\nAnswer in French.')).toBe(true);
      expect(lastSystemMessage()?.includes('Answer briefly.')).toBe(false);

      // A refusal keeps the panel open with the text and the server's reason, on the field.
      await toggle.click();
      await panel.waitFor();
      expect(await field.inputValue()).toBe('Answer in French.');
      await field.fill('x'.repeat(50_001));
      await panel.getByRole('button', { name: 'Save' }).click();
      await panel.getByRole('alert').filter({ hasText: 'Could not save' }).waitFor();
      expect(await panel.getByRole('alert').textContent()).toBe(
        'Could not save the system prompt: systemPrompt must be at most 50000 characters after trimming, got 50001.',
      );
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect((await field.inputValue()).length).toBe(50_001);
      expect(await storedPrompt(id)).toBe('Answer in French.');

      // Emptied, it is removed, and the button says there is none.
      await field.fill('');
      await panel.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('button', { name: 'Add system prompt' }).waitFor();
      expect(await panel.isVisible()).toBe(false);
      expect(await storedPrompt(id)).toBeNull();
      // After a reload the header says the same.
      await page.reload();
      await page.getByRole('button', { name: 'Add system prompt' }).waitFor();
      expect(replay.failures).toEqual([]);
      expect(browser.offOriginRequests).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'on a phone the button sits on the model’s line and opens the same panel',
    async () => {
      const created = await api('POST', '/api/chats', {
        provider: 'openai-compatible',
        model: 'test-model',
        title: 'Phone prompt',
        systemPrompt: 'Short answers.',
      });
      const { id } = (await created.json()) as { id: string };
      const page = await browser.newPage(PHONE_VIEWPORT);
      await signIn(page, server.url, server.token);
      await page.goto(`${server.url}/chats/${id}`);
      await page.getByRole('heading', { name: 'Phone prompt', level: 1 }).waitFor();
      const toggle = page.getByRole('button', { name: 'System prompt', exact: true });
      expect(await toggle.evaluate((button) => button.parentElement?.className)).toBe('chat-facts');
      await toggle.click();
      expect(await page.getByLabel('System prompt of this chat').inputValue()).toBe('Short answers.');
      await page.keyboard.press('Escape');
      await page.getByRole('form', { name: 'System prompt' }).waitFor({ state: 'hidden' });
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      await page.close();
    },
    TIMEOUT_MS,
  );
});
