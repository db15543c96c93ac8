/**
 * The new-chat form in real headless Chromium against the real server's workspace endpoints
 * (`GET /api/workspaces`, `GET /api/workspaces/directories`, `POST /api/chats` with `workingDirectory`):
 * the user picks their workspace, walks into a folder with the mouse and the keyboard, and the chat is
 * created bound to exactly that folder. A user not allowed unrestricted chats is never offered them.
 * Screenshots at desktop and phone width. Run on its own: `bun test ./tests/web/new-chat-form.e2e.ts`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { WorkspaceList } from '../../web/api-client.ts';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import {
  callApi,
  launchTestBrowser,
  openChatOptions,
  PHONE_VIEWPORT,
  SCREENSHOT_DIRECTORY,
  signIn,
  startWebTestServer,
  type TestBrowser,
  type WebTestServer,
} from '../helpers/web-browser.ts';

const TIMEOUT_MS = 45_000;
let replay: ReplayServer;
let server: WebTestServer;
let browser: TestBrowser;
let personal: string;

const api = (method: string, pathname: string, body?: unknown) => callApi(server, method, pathname, body);

beforeAll(async () => {
  replay = startReplayServer();
  server = await startWebTestServer({ environment: { OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1` } });
  const response = await api('GET', '/api/workspaces');
  expect(response.status).toBe(200);
  const listed = (await response.json()) as WorkspaceList;
  expect(listed.allowUnrestricted).toBe(false);
  const mine = listed.workspaces.find((workspace) => workspace.kind === 'personal');
  expect(mine).toBeDefined();
  personal = mine!.path;
  await mkdir(path.join(personal, 'app', 'src'), { recursive: true });
  await mkdir(path.join(personal, 'docs'), { recursive: true });
  browser = await launchTestBrowser(server.url);
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await replay?.close();
}, 30_000);

describe('new-chat form in Chromium', () => {
  test(
    'pick the personal workspace, walk into app/src (keyboard) and back up to app, create the chat bound there',
    async () => {
      const page = await browser.newPage();
      await signIn(page, server.url, server.token);
      await page.getByRole('link', { name: 'Chats' }).click();
      await page.getByRole('heading', { name: 'New chat', level: 1 }).waitFor();
      await openChatOptions(page);
      await page.getByLabel('Model').fill('test-model');
      await page.getByLabel('Title (optional)').fill('Folder chat');

      const workspace = page.getByLabel('Workspace', { exact: true });
      expect(await workspace.inputValue()).toBe(personal);
      expect(await workspace.locator('option:checked').textContent()).toBe('My workspace (read-write)');
      const folders = page.locator('.folder-list button');
      await page.getByRole('button', { name: 'Open folder docs' }).waitFor();
      expect(await folders.allTextContents()).toEqual(['▸app', '▸docs']);
      expect(
        await page.getByRole('button', { name: 'Up one folder (at the workspace root)' }).isDisabled(),
      ).toBe(true);
      expect(await page.getByLabel('Let this chat reach all my workspaces').count()).toBe(0);

      await page.getByRole('button', { name: 'Open folder app' }).focus();
      await page.keyboard.press('Enter');
      // Opening a folder moves focus to its first subfolder, so the keyboard walks on from there.
      await page.waitForFunction(
        () => document.activeElement?.getAttribute('aria-label') === 'Open folder src',
      );
      expect(
        await page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle),
      ).toBe('solid');
      await page.keyboard.press('Enter');
      await page.locator('.folder-current', { hasText: 'src' }).waitFor();
      expect(await page.locator('.folder-trail li').allTextContents()).toEqual([
        'My workspace',
        'app',
        'src',
      ]);
      expect(await page.getByRole('status').filter({ hasText: 'No folders inside' }).count()).toBe(1);
      await page.getByRole('button', { name: 'Up one folder', exact: true }).click();
      await page.locator('.folder-current', { hasText: 'app' }).waitFor();
      expect(await page.locator('.folder-current').getAttribute('aria-current')).toBe('location');

      await page.screenshot({
        path: path.join(SCREENSHOT_DIRECTORY, 'new-chat-form-desktop.png'),
        fullPage: true,
      });
      await page.setViewportSize(PHONE_VIEWPORT);
      await page.screenshot({
        path: path.join(SCREENSHOT_DIRECTORY, 'new-chat-form-phone.png'),
        fullPage: true,
      });
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);

      await page.getByRole('button', { name: 'Create chat' }).click();
      await page.getByRole('heading', { name: 'Folder chat', level: 1 }).waitFor();
      const chatId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!);
      const { chat } = (await (await api('GET', `/api/chats/${encodeURIComponent(chatId)}`)).json()) as {
        chat: { workingDirectory: string; confined: boolean };
      };
      expect(chat.workingDirectory).toBe(path.join(personal, 'app'));
      expect(chat.confined).toBe(true);
      // The header names the place as people know it, never the server's path of the workspace.
      await page.locator('.chat-header .chat-meta', { hasText: 'in My workspace / app' }).waitFor();
      expect(await page.locator('.chat-header').textContent()).not.toContain(personal);
      expect(browser.offOriginRequests).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'the trail jumps straight back to the workspace root',
    async () => {
      const page = await browser.newPage();
      await signIn(page, server.url, server.token);
      await page.goto(`${server.url}/chats`);
      await openChatOptions(page);
      await page.getByRole('button', { name: 'Open folder app' }).click();
      await page.getByRole('button', { name: 'Open folder src' }).click();
      await page.locator('.folder-current', { hasText: 'src' }).waitFor();
      await page.locator('.folder-trail').getByRole('button', { name: 'My workspace' }).click();
      await page.getByRole('button', { name: 'Open folder docs' }).waitFor();
      expect(await page.locator('.folder-trail li').allTextContents()).toEqual(['My workspace']);
      await page.close();
    },
    TIMEOUT_MS,
  );
});
