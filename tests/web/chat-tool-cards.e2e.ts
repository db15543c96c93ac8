/**
 * Tool cards on the chat page in real Chromium at desktop size, against the real server and a scripted
 * OpenAI-compatible model: five calls of one response are one group, folded to a single summary line,
 * whose rows are one line each (and so after a reload); list_directory's result is a table (a hostile
 * file name stays text), glob's a list; edit_file's diff, shown while it waits for approval, stays after
 * the approval and the result (and after a reload) instead of a JSON hash; a generated image is shown
 * once — under its call's line, unfolded — and the answer that embeds it gets a reference instead; a
 * call waiting for approval inside a group comes into view and is never folded away, also after a reload.
 * Run by `npm run test:e2e`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { defaultToolRegistry, ToolRegistry } from '../../src/tools/registry.ts';
import { makeTool, TEST_TOOL_TRAITS } from '../helpers/fake-tools.ts';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import {
  callApi,
  DESKTOP_VIEWPORT,
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
const IMAGE_ID = 'img-card-1';
/** A call's line: one line of text with its padding (measured ≈ 30 px); two lines would be ≈ 50. */
const ONE_LINE_PX = 40;
const HOSTILE_NAME = '<img src=x onerror="window.__pwned=1">.txt';

/** The builtins plus a stand-in generate_image returning a stored image's URL, as the real tool does. */
function registryWithImageStandIn(): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of defaultToolRegistry.list())
    if (tool.definition.name !== 'generate_image') registry.register(tool);
  const standIn = makeTool({
    name: 'generate_image',
    traits: { ...TEST_TOOL_TRAITS, resultView: 'images' },
    execute: async () => ({
      count: 1,
      model: 'test-image',
      images: [
        {
          index: 0,
          id: IMAGE_ID,
          url: `/api/images/${IMAGE_ID}`,
          model: 'test-image',
          mimeType: 'image/png',
          byteLength: 70,
          revisedPrompt: 'a ripe mango',
        },
      ],
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
  await mkdir(path.join(project, 'src'), { recursive: true });
  for (const name of ['a.txt', 'b.txt', 'c.txt'])
    await writeFile(path.join(project, name), `mango ${name}\n`);
  await writeFile(path.join(project, HOSTILE_NAME), 'hostile\n');
  await writeFile(path.join(project, 'notes.md'), 'mango: green\nend\n');
  // Stated rather than relied on as defaults: edits and commands wait for the user's yes.
  for (const tool of ['edit_file', 'bash']) {
    const saved = await api('PUT', `/api/settings/tools/${tool}`, {
      enabled: true,
      parameters: { approval: 'always' },
    });
    expect(saved.status).toBe(200);
  }
  browser = await launchTestBrowser(server.url);
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await replay?.close();
}, 30_000);

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

async function send(page: Page, message: string): Promise<void> {
  await page.getByLabel('Message').fill(message);
  await page.getByLabel('Message').press('Enter');
}

const height = async (locator: Locator) => (await locator.boundingBox())!.height;
const call = (id: string, name: string, args: unknown) => ({ id, name, fragments: [JSON.stringify(args)] });

describe('tool cards in Chromium', () => {
  test(
    'five calls of one response are one folded group of one-line rows, live and after a reload',
    async () => {
      replay.enqueue(
        {
          body: chatBody({
            calls: [
              call('call_a', 'read_file', { path: 'a.txt' }),
              call('call_b', 'read_file', { path: 'b.txt' }),
              call('call_grep', 'grep', { pattern: 'mango', path: '.' }),
              call('call_c', 'read_file', { path: 'c.txt' }),
              call('call_glob', 'glob', { pattern: '*.txt', cwd: '.' }),
            ],
          }),
        },
        { body: chatBody({ text: 'Read them all.' }) },
      );
      const page = await browser.newPage();
      await openNewChat(page, 'Parallel chat');
      await send(page, 'Look at every text file');
      await page.getByText('Read them all.').waitFor();

      const checkFolded = async () => {
        const groups = page.locator('.call-group');
        expect(await groups.count()).toBe(1);
        const group = groups.first();
        expect(await group.locator('article.call-card').count()).toBe(5);
        expect(await group.locator('.call-group-summary').textContent()).toBe(
          '5 tool calls: read_file ×3, grep, glob',
        );
        await group.locator('.call-group-status', { hasText: 'done' }).waitFor();
        const toggle = group.locator('.call-group-toggle');
        expect(await toggle.getAttribute('aria-expanded')).toBe('false');
        for (const card of await group.locator('article.call-card').all())
          expect(await card.isHidden()).toBe(true);
        // Folded, the five calls take one line.
        expect(await height(group)).toBeLessThanOrEqual(ONE_LINE_PX);
        return group;
      };
      let group = await checkFolded();
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-tool-group-folded.png') });

      // Open by keyboard: five rows of one line each, every row folded.
      await group.locator('.call-group-toggle').focus();
      await page.keyboard.press('Enter');
      expect(await group.locator('.call-group-toggle').getAttribute('aria-expanded')).toBe('true');
      const cards = await group.locator('article.call-card').all();
      for (const card of cards) {
        expect(await card.isVisible()).toBe(true);
        expect(await height(card)).toBeLessThanOrEqual(ONE_LINE_PX);
        expect(await card.locator('details[open]').count()).toBe(0);
      }
      expect(await group.locator('.call-summary').allTextContents()).toEqual([
        'a.txt',
        'b.txt',
        'mango in .',
        'c.txt',
        '*.txt in .',
      ]);
      expect(await height(group)).toBeLessThanOrEqual(6 * ONE_LINE_PX);

      // A row opens to its card by keyboard; glob's result is a list of paths, its arguments folded.
      const glob = page.locator('article[data-call-id="call_glob"]');
      await glob.locator('summary.call-header').focus();
      await page.keyboard.press('Enter');
      expect(await glob.locator('.result-paths .result-caption').textContent()).toBe(
        '4 paths match *.txt in .',
      );
      expect(await glob.locator('.result-path-list li').allTextContents()).toEqual([
        HOSTILE_NAME,
        'a.txt',
        'b.txt',
        'c.txt',
      ]);
      expect(await glob.locator('details.call-arguments').getAttribute('open')).toBeNull();
      expect(await glob.locator('.call-arguments pre').isVisible()).toBe(false);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-tool-group-open.png') });
      // At phone width too, every call stays one line and nothing runs past the screen.
      await page.setViewportSize(PHONE_VIEWPORT);
      for (const card of cards.filter((_card, index) => index < 4))
        expect(await height(card)).toBeLessThanOrEqual(ONE_LINE_PX);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await page.setViewportSize(DESKTOP_VIEWPORT);

      await page.reload();
      await page.getByText('Read them all.').waitFor();
      group = await checkFolded();
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'a call waiting for approval in a group is in view, stays shown when the group is folded, and after a reload',
    async () => {
      replay.enqueue(
        {
          body: chatBody({
            calls: [
              call('call_ra', 'read_file', { path: 'a.txt' }),
              call('call_rb', 'read_file', { path: 'b.txt' }),
              call('call_echo', 'bash', { command: 'echo grouped' }),
            ],
          }),
        },
        { body: chatBody({ text: 'Echoed after reading.' }) },
      );
      const page = await browser.newPage();
      await openNewChat(page, 'Grouped approval chat');
      await send(page, 'Read, then echo');
      const waiting = page.locator('article[data-call-id="call_echo"]');
      const group = page.locator('.call-group', { has: waiting });
      const checkShown = async () => {
        await waiting.locator('.call-status', { hasText: 'waiting for your approval' }).waitFor();
        await group.locator('.call-group-summary', { hasText: '3 tool calls: read_file ×2, bash' }).waitFor();
        expect(await page.locator('.call-group').count()).toBe(1);
        expect(await group.locator('.call-group-status').textContent()).toBe('1 waiting for your approval');
        // Asked, so the group is open, and the waiting card was brought into view.
        expect(await group.locator('.call-group-toggle').getAttribute('aria-expanded')).toBe('true');
        await page.waitForFunction(() => {
          const card = document.querySelector('article[data-call-id="call_echo"]')!.getBoundingClientRect();
          const log = document.querySelector('.transcript')!.getBoundingClientRect();
          return card.top >= log.top && card.top < log.bottom;
        });
        // Folded by the user, the group still shows the card that waits, and only it.
        await group.locator('.call-group-toggle').click();
        expect(await group.locator('.call-group-toggle').getAttribute('aria-expanded')).toBe('false');
        expect(await page.locator('article[data-call-id="call_ra"]').isHidden()).toBe(true);
        expect(await page.locator('article[data-call-id="call_rb"]').isHidden()).toBe(true);
        expect(await waiting.isVisible()).toBe(true);
        expect(await waiting.getByRole('button', { name: 'Approve' }).isVisible()).toBe(true);
        expect(await waiting.locator('.approval-command').textContent()).toBe('echo grouped');
      };
      await checkShown();
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-tool-group-waiting.png') });
      // After a reload the turn record shows the waiting card at once; the replayed stream then puts
      // it in its response's group.
      await page.reload();
      await checkShown();

      await waiting.getByRole('button', { name: 'Approve' }).click();
      await page.getByText('Echoed after reading.').waitFor();
      await group.locator('.call-group-status', { hasText: 'done' }).waitFor();
      expect(await page.locator('.call-group').count()).toBe(1);
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'list_directory is one line that opens to a table; a hostile file name is only text',
    async () => {
      replay.enqueue(
        { body: chatBody({ calls: [call('call_list', 'list_directory', { path: '.' })] }) },
        { body: chatBody({ text: 'Listed.' }) },
      );
      const page = await browser.newPage();
      await openNewChat(page, 'Listing chat');
      await send(page, 'What is here?');
      await page.getByText('Listed.').waitFor();

      // A lone call: no summary line, only its row.
      const group = page.locator('.call-group');
      expect(await group.count()).toBe(1);
      expect(await group.getAttribute('class')).toBe('call-group call-group-single');
      expect(await group.locator('.call-group-toggle').isVisible()).toBe(false);
      const card = page.locator('article[data-call-id="call_list"]');
      expect(await height(card)).toBeLessThanOrEqual(ONE_LINE_PX);
      expect(await card.locator('.call-name').textContent()).toBe('list_directory');
      expect(await card.locator('.call-summary').textContent()).toBe('.');
      expect(await card.locator('.call-status').textContent()).toBe('done');
      expect(await card.locator('.call-duration').textContent()).toMatch(/^\d+(\.\d+)? m?s$/);

      await card.locator('summary.call-header').click();
      const table = card.locator('table.result-table');
      expect(await table.locator('thead th').allTextContents()).toEqual(['Name', 'Type']);
      expect(
        await table
          .locator('tbody tr')
          .evaluateAll((rows) =>
            rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)),
          ),
      ).toEqual([
        [HOSTILE_NAME, 'file'],
        ['a.txt', 'file'],
        ['b.txt', 'file'],
        ['c.txt', 'file'],
        ['notes.md', 'file'],
        ['src/', 'folder'],
      ]);
      expect(await card.locator('.result-caption').first().textContent()).toBe(
        '. — 6 entries: 1 folder, 5 files',
      );
      expect(await card.locator('img').count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    "edit_file's diff shown before approving stays after the approval, the result and a reload",
    async () => {
      replay.enqueue(
        { body: chatBody({ calls: [call('call_read_notes', 'read_file', { path: 'notes.md' })] }) },
        {
          body: chatBody({
            calls: [
              call('call_edit', 'edit_file', {
                path: 'notes.md',
                oldString: 'mango: green\n',
                newString: 'mango: ripe\nseason: now\n',
              }),
            ],
          }),
        },
        { body: chatBody({ text: 'Ripened.' }) },
      );
      const page = await browser.newPage();
      await openNewChat(page, 'Edit chat');
      await send(page, 'Ripen the notes');
      const card = page.locator('article[data-call-id="call_edit"]');
      await card.locator('.call-status', { hasText: 'waiting for your approval' }).waitFor();
      const diff = async () => ({
        caption: await card
          .locator('.approval-diff')
          .locator('xpath=..')
          .locator('.result-caption')
          .textContent(),
        removed: await card.locator('.approval-diff del').allTextContents(),
        added: await card.locator('.approval-diff ins').allTextContents(),
      });
      const asked = await diff();
      expect(asked).toEqual({
        caption: 'Edit notes.md — 1 line removed, 2 added',
        removed: ['- mango: green\n'],
        added: ['+ mango: ripe\n', '+ season: now\n'],
      });

      await card.getByRole('button', { name: 'Approve' }).click();
      await card.locator('.call-status', { hasText: 'done' }).waitFor();
      await page.getByText('Ripened.').waitFor();
      const checkKept = async () => {
        expect(await card.locator('details.call-row').getAttribute('open')).toBe('');
        expect(await card.locator('.approval-diff').isVisible()).toBe(true);
        expect(await diff()).toEqual(asked);
        expect(await card.locator('.call-approval').textContent()).toBe('Approved by you.');
        expect(await card.locator('.result-edit').textContent()).toBe('Saved: 1 replacement, from line 1.');
        // The result's hash is not what the user reads: no JSON of it in the card.
        expect(await card.locator('.call-result').textContent()).not.toContain('sha256');
      };
      await checkKept();
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-tool-edit-kept.png') });

      await page.reload();
      await page.getByText('Ripened.').waitFor();
      await checkKept();
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'a generated image is shown once: under its call, unfolded; the answer embedding it refers to it',
    async () => {
      const owner = await server.server.deps.users.findByName('web-tester');
      const imagePath = path.join(server.root, 'card-image.png');
      const png = Buffer.from(PNG_BASE64, 'base64');
      await writeFile(imagePath, png);
      await server.server.deps.images.save({
        id: IMAGE_ID,
        userId: owner!.id,
        chatId: undefined,
        model: 'test-image',
        prompt: 'a ripe mango',
        mimeType: 'image/png',
        filePath: imagePath,
        byteLength: png.length,
        createdAt: 0,
      });
      replay.enqueue(
        { body: chatBody({ calls: [call('call_image', 'generate_image', {})] }) },
        { body: chatBody({ text: `Here it is:\n\n![a ripe mango](/api/images/${IMAGE_ID})\n\nEnjoy.` }) },
      );
      const page = await browser.newPage();
      await openNewChat(page, 'Image once chat');
      await send(page, 'Draw a ripe mango');
      await page.getByText('Enjoy.').waitFor();

      const checkOnce = async () => {
        await page.waitForFunction(
          () => (document.querySelector('.call-images img') as HTMLImageElement | null)?.naturalWidth === 1,
        );
        expect(await page.locator('.transcript img').count()).toBe(1);
        const card = page.locator('article[data-call-id="call_image"]');
        const image = card.locator('.call-images img');
        expect(await image.getAttribute('alt')).toBe('a ripe mango');
        // Seen without opening anything: the card itself stays one folded line above it.
        expect(await image.isVisible()).toBe(true);
        expect(await card.locator('details.call-row').getAttribute('open')).toBeNull();
        const answer = page.locator('.message-assistant .markdown-body');
        expect(await answer.locator('img').count()).toBe(0);
        await answer
          .getByRole('button', { name: 'Image: a ripe mango (shown with its tool call above)' })
          .waitFor();
        // What the card says beside the picture is a caption, not the result's JSON.
        await card.locator('summary.call-header').click();
        expect(await card.locator('.result-image-facts').textContent()).toBe('1 image made with test-image.');
        expect(await card.locator('.call-result pre').count()).toBe(0);
      };
      await checkOnce();
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-tool-image-once.png') });
      await page.reload();
      await page.getByText('Enjoy.').waitFor();
      await checkOnce();
      expect(replay.failures).toEqual([]);
      expect(browser.offOriginRequests).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );
});
