/**
 * Approvals on the chat page in real headless Chromium against the real server, whose OpenAI-compatible
 * provider talks to a scripted replay server: a waiting bash card shows the exact command and the status
 * line says the chat waits; Approve runs it and its result appears; Deny with a reason shows the denial
 * and the model's next request carries the reason; an unanswered call is denied when its time is up;
 * Cancel while waiting cancels the call without running it; a reload while waiting still shows the
 * buttons and answering works; by keyboard, Tab from the composer reaches Review, then Approve, and
 * Enter answers; "Always allow…" saves the edited prefix and "Remember this exact command" the command,
 * in the tool's settings; edit_file waits with a line diff and write_file with the content. Screenshots
 * go to `test-results/`. Run by `npm run test:e2e`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import '../../src/tools/builtin/index.ts';
import { type RecordedRequest, type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
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
let project: string;

const api = (method: string, pathname: string, body?: unknown) => callApi(server, method, pathname, body);

async function saveTool(name: string, parameters: Record<string, unknown>): Promise<void> {
  const response = await api('PUT', `/api/settings/tools/${name}`, { enabled: true, parameters });
  expect(response.status).toBe(200);
}

async function toolParameters(name: string): Promise<Record<string, unknown>> {
  const response = await api('GET', '/api/settings/tools');
  const { tools } = (await response.json()) as {
    tools: { name: string; parameters: Record<string, unknown> }[];
  };
  return tools.find((tool) => tool.name === name)!.parameters;
}

beforeAll(async () => {
  replay = startReplayServer();
  server = await startWebTestServer({ environment: { OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1` } });
  project = path.join(server.root, 'project');
  await mkdir(project);
  // Stated here rather than relied on as defaults: every call of these tools asks.
  await saveTool('bash', { approval: 'always' });
  await saveTool('write_file', { approval: 'always' });
  await saveTool('edit_file', { approval: 'always' });
  browser = await launchTestBrowser(server.url);
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await replay?.close();
});

async function openNewChat(page: Page, title: string): Promise<string> {
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
  return id;
}

async function send(page: Page, message: string): Promise<void> {
  await page.getByLabel('Message').fill(message);
  await page.getByLabel('Message').press('Enter');
}

/** A model that calls bash with `command`, then answers `answer`. */
function scriptBash(callId: string, command: string, answer: string): void {
  replay.enqueue(
    {
      body: chatBody({
        text: 'Let me run it.',
        calls: [{ id: callId, name: 'bash', fragments: [JSON.stringify({ command })] }],
      }),
    },
    { body: chatBody({ text: answer }) },
  );
}

/** The card of a call once it waits, with its Approve button on screen. */
async function waitingCard(page: Page, callId: string): Promise<Locator> {
  const card = page.locator(`article[data-call-id="${callId}"]`);
  await card.locator('.call-status', { hasText: 'waiting for your approval' }).waitFor();
  await card.getByRole('button', { name: 'Approve' }).waitFor();
  return card;
}

/** The text of the tool message the model received for `callId`, in the last request that has one. */
function toolMessageSent(callId: string): string | undefined {
  for (const request of [...replay.requests].reverse()) {
    const messages = (
      request.body as { messages?: { role: string; tool_call_id?: string; content?: unknown }[] }
    )?.messages;
    const found = messages?.find((message) => message.role === 'tool' && message.tool_call_id === callId);
    if (found) return typeof found.content === 'string' ? found.content : JSON.stringify(found.content);
  }
  return undefined;
}

/** What the reader sees of the conversation, entry by entry. */
function transcriptText(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.transcript > *')].map((node) => (node.textContent ?? '').trim()),
  );
}

const requestCount = (): number =>
  replay.requests.filter((request: RecordedRequest) => request.method === 'POST').length;

describe('approvals on the chat page in Chromium', () => {
  test(
    'a waiting card shows the exact command and the chat says it waits; Approve runs it and its result appears',
    async () => {
      const command = "printf 'mango %s\\n' ripe";
      scriptBash('call_ok', command, 'It printed mango ripe.');
      const page = await browser.newPage(SHORT_DESKTOP_VIEWPORT);
      await openNewChat(page, 'Approve chat');
      await send(page, 'Print it');

      const card = await waitingCard(page, 'call_ok');
      expect(await card.locator('.approval-command').textContent()).toBe(command);
      expect(await card.locator('.approval-reason').textContent()).not.toBe('');
      expect(await card.locator('.approval-expiry time').getAttribute('datetime')).toMatch(
        /^\d{4}-\d\d-\d\dT/,
      );
      expect(await page.locator('.turn-status').textContent()).toBe(
        `Waiting for your approval: bash: ${command}Review`,
      );
      // The status is spoken by the chat's one polite live region.
      expect(await page.locator('[aria-live="polite"]').textContent()).toContain(
        `Waiting for your approval: bash: ${command}`,
      );
      expect(await page.title()).toBe('Approval needed · Chats — Mango');
      expect(await card.getByRole('button', { name: 'Always allow…' }).count()).toBe(1);
      expect(await card.getByRole('button', { name: 'Remember this exact command' }).count()).toBe(1);
      expect(await card.getByRole('textbox', { name: /Reason for denying/ }).count()).toBe(1);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-approval-waiting-desktop.png') });
      const beforeAnswer = requestCount();
      expect(beforeAnswer).toBe(1);

      await card.getByRole('button', { name: 'Approve' }).click();
      await card.locator('.call-status', { hasText: 'done' }).waitFor();
      await page.getByText('It printed mango ripe.').waitFor();
      expect(await card.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      expect(await card.locator('.call-approval').textContent()).toBe('Approved by you.');
      await card.getByText('Result').click();
      expect(await card.locator('.result-shell').textContent()).toContain('mango ripe');
      expect(toolMessageSent('call_ok')).toContain('mango ripe');
      expect(await page.locator('.turn-status').textContent()).toBe('');
      expect(await page.title()).toBe('Chats — Mango');

      // After the turn, a reload reads the same: one card, approved, with its result.
      const live = await transcriptText(page);
      await page.reload();
      await page.getByText('It printed mango ripe.').waitFor();
      expect(await transcriptText(page)).toEqual(live);
      expect(await page.locator('article[data-call-id="call_ok"] .call-approval').textContent()).toBe(
        'Approved by you.',
      );
      expect(replay.failures).toEqual([]);
      expect(browser.offOriginRequests).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'Deny with a reason shows the denial, and the model reads the reason',
    async () => {
      scriptBash('call_no', 'rm -rf build', 'Understood, I kept the build.');
      const page = await browser.newPage();
      await openNewChat(page, 'Deny chat');
      await send(page, 'Clean up');
      const card = await waitingCard(page, 'call_no');
      expect(await card.locator('.approval-command').textContent()).toBe('rm -rf build');
      await card
        .getByRole('textbox', { name: /Reason for denying/ })
        .fill('keep the build, it is slow to make');
      await card.getByRole('button', { name: 'Deny' }).click();

      await card.locator('.call-status', { hasText: 'failed: denied' }).waitFor();
      await page.getByText('Understood, I kept the build.').waitFor();
      expect(await card.locator('.call-error .error-text').textContent()).toBe(
        'The user denied this call: keep the build, it is slow to make',
      );
      expect(await card.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      const live = await transcriptText(page);
      await page.reload();
      await page.getByText('Understood, I kept the build.').waitFor();
      expect(await transcriptText(page)).toEqual(live);
      expect(toolMessageSent('call_no')).toContain(
        'The user denied this call: keep the build, it is slow to make',
      );
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'unanswered, the call is denied when its time is up: the card says so and the buttons go',
    async () => {
      await saveTool('bash', { approval: 'always', approvalTimeoutSeconds: 10 });
      scriptBash('call_late', 'echo too-late', 'Nobody answered, so I did not run it.');
      const page = await browser.newPage();
      await openNewChat(page, 'Timeout chat');
      await send(page, 'Echo, if you may');
      const card = await waitingCard(page, 'call_late');
      await card.locator('.call-status', { hasText: 'failed: denied' }).waitFor({ timeout: 25_000 });
      expect(await card.locator('.call-error .error-text').textContent()).toBe(
        'Nobody answered the approval question within 10 seconds (approvalTimeoutSeconds), so the call was denied and not run.',
      );
      expect(await card.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      await page.getByText('Nobody answered, so I did not run it.').waitFor();
      expect(await page.locator('.turn-status').textContent()).toBe('');
      expect(replay.failures).toEqual([]);
      await saveTool('bash', { approval: 'always', approvalTimeoutSeconds: 600 });
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'Cancel while a call waits ends the turn: the call is cancelled, never run, and its buttons go',
    async () => {
      const marker = path.join(project, 'cancelled-marker');
      // Only the call is scripted: a cancelled turn asks the model nothing more.
      replay.enqueue({
        body: chatBody({
          calls: [
            { id: 'call_cancel', name: 'bash', fragments: [JSON.stringify({ command: `touch ${marker}` })] },
          ],
        }),
      });
      const requestsBefore = requestCount();
      const page = await browser.newPage();
      await openNewChat(page, 'Cancel chat');
      await send(page, 'Touch it');
      const card = await waitingCard(page, 'call_cancel');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await card.locator('.call-status', { hasText: 'failed: cancelled' }).waitFor();
      expect(await card.locator('.call-error .error-text').textContent()).toBe(
        'The turn was cancelled while the call waited for approval.',
      );
      expect(await card.getByRole('button').count()).toBe(0);
      await page.getByRole('button', { name: 'Send' }).and(page.locator(':not([disabled])')).waitFor();
      expect(await page.locator('.turn-status').textContent()).toBe('');
      expect(await Bun.file(marker).exists()).toBe(false);
      expect(requestCount()).toBe(requestsBefore + 1);
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'a reload while a call waits still shows its card and buttons in place, and answering works',
    async () => {
      scriptBash('call_reload', 'echo after-reload', 'Printed after-reload.');
      const page = await browser.newPage();
      await openNewChat(page, 'Reload chat');
      await send(page, 'Echo');
      await waitingCard(page, 'call_reload');

      await page.reload();
      const card = await waitingCard(page, 'call_reload');
      expect(await card.locator('.approval-command').textContent()).toBe('echo after-reload');
      // Once, after the model's text and the user's message, as it was live. The waiting card shows
      // from the turn record at once; the replayed events then put it after the model's text.
      const order = () =>
        page.evaluate(() =>
          [...document.querySelectorAll('.transcript > *')].map((node) =>
            node.classList.contains('call-card') ? 'card' : (node.textContent ?? '').trim(),
          ),
        );
      const expected = ['You: Echo', 'Model: Let me run it.', 'card'];
      for (let waited = 0; waited < 8000; waited += 50) {
        if (JSON.stringify(await order()) === JSON.stringify(expected)) break;
        await Bun.sleep(50);
      }
      expect(await order()).toEqual(expected);
      expect(await page.locator('article[data-call-id="call_reload"]').count()).toBe(1);
      await page
        .locator('.turn-status', { hasText: 'Waiting for your approval: bash: echo after-reload' })
        .waitFor();

      await card.getByRole('button', { name: 'Approve' }).click();
      await card.locator('.call-status', { hasText: 'done' }).waitFor();
      await page.getByText('Printed after-reload.').waitFor();
      await card.getByText('Result').click();
      expect(await card.locator('.result-shell').textContent()).toContain('after-reload');
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'by keyboard: Tab from the composer reaches Review, Review leads to the card, Tab reaches Approve, Enter answers',
    async () => {
      scriptBash('call_keys', 'sleep 2', 'Slept by keyboard.');
      const page = await browser.newPage();
      await openNewChat(page, 'Keyboard chat');
      await send(page, 'Echo by keyboard');
      const card = await waitingCard(page, 'call_keys');
      const focused = () =>
        page.evaluate(() => {
          const element = document.activeElement as HTMLElement | null;
          return element?.getAttribute('aria-label') ?? element?.textContent?.trim() ?? '';
        });
      // Nothing moved focus: an Enter meant for the composer must not approve a command.
      expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('message');
      await page.keyboard.press('Tab');
      expect(await focused()).toBe('Review the waiting call');
      await page.keyboard.press('Enter');
      expect(await focused()).toBe('Tool call bash, waiting for your approval');
      await page.keyboard.press('Tab');
      expect(await focused()).toBe('Approve');
      await page.keyboard.press('Enter');
      // While it runs (the turn is not over), the answered card has no buttons and focus went back to
      // the composer rather than to the page.
      await card.locator('.call-status', { hasText: 'running' }).waitFor();
      expect(await card.getByRole('button').count()).toBe(0);
      expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('message');
      await card.locator('.call-status', { hasText: 'done' }).waitFor();
      await page.getByText('Slept by keyboard.').waitFor();
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    '"Always allow…" saves the edited prefix and "Remember this exact command" the command, in bash’s settings',
    async () => {
      scriptBash('call_prefix', 'git status --short', 'Clean.');
      const page = await browser.newPage();
      await openNewChat(page, 'Rules chat');
      await send(page, 'Status?');
      const card = await waitingCard(page, 'call_prefix');
      await card.getByRole('button', { name: 'Always allow…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Always allow these bash commands?' });
      const field = dialog.getByRole('textbox', { name: 'Command prefix' });
      expect(await field.inputValue()).toBe('git status');
      expect(await field.evaluate((node) => node === document.activeElement)).toBe(true);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-approval-always-allow.png') });
      // A prefix the command does not start with is refused in place; the dialog stays to correct it.
      await field.fill('git log');
      await dialog.getByRole('button', { name: 'Allow and run' }).click();
      await dialog.getByRole('alert').waitFor();
      expect(await dialog.getByRole('alert').textContent()).not.toBe('');
      await field.fill('git status');
      await field.press('Enter');
      await dialog.waitFor({ state: 'detached' });
      await card.locator('.call-status', { hasText: 'done' }).waitFor();
      expect(await card.locator('.call-approval').textContent()).toBe(
        'Approved by you. Saved git status in autoApprovedCommands: it runs without asking from now on.',
      );
      expect((await toolParameters('bash')).autoApprovedCommands).toEqual(['git status']);
      await page.getByText('Clean.').waitFor();

      const exact = 'ls -la | head -3';
      scriptBash('call_exact', exact, 'Listed.');
      await send(page, 'List');
      const exactCard = await waitingCard(page, 'call_exact');
      await exactCard.getByRole('button', { name: 'Remember this exact command' }).click();
      await exactCard.locator('.call-status', { hasText: 'done' }).waitFor();
      expect((await toolParameters('bash')).autoApprovedExactCommands).toEqual([exact]);
      await page.getByText('Listed.').waitFor();
      expect(replay.failures).toEqual([]);
      await saveTool('bash', { approval: 'always', autoApprovedCommands: [], autoApprovedExactCommands: [] });
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'edit_file waits with the path and a line diff; write_file with the path and the content',
    async () => {
      const notes = path.join(project, 'notes.md');
      await writeFile(notes, '# Notes\nmango: green\nend\n');
      replay.enqueue(
        {
          body: chatBody({
            calls: [{ id: 'call_read', name: 'read_file', fragments: ['{"path":"notes.md"}'] }],
          }),
        },
        {
          body: chatBody({
            calls: [
              {
                id: 'call_edit',
                name: 'edit_file',
                fragments: [
                  JSON.stringify({
                    path: 'notes.md',
                    oldString: 'mango: green\n',
                    newString: 'mango: ripe\nseason: now\n',
                  }),
                ],
              },
            ],
          }),
        },
        {
          body: chatBody({
            calls: [
              {
                id: 'call_write',
                name: 'write_file',
                fragments: [JSON.stringify({ path: 'plan.txt', content: 'pick\npack\n' })],
              },
            ],
          }),
        },
        { body: chatBody({ text: 'Edited; the plan was not written.' }) },
      );
      const page = await browser.newPage();
      const chatId = await openNewChat(page, 'Files approval chat');
      await send(page, 'Ripen the notes and write a plan');

      const edit = await waitingCard(page, 'call_edit');
      expect(await edit.locator('.approval-request .result-caption').textContent()).toBe(
        'Edit notes.md — 1 line removed, 2 added',
      );
      expect(await edit.locator('.approval-diff del').allTextContents()).toEqual(['- mango: green\n']);
      expect(await edit.locator('.approval-diff ins').allTextContents()).toEqual([
        '+ mango: ripe\n',
        '+ season: now\n',
      ]);
      expect(await edit.getByRole('button', { name: 'Always allow…' }).count()).toBe(0);
      expect(await edit.getByRole('button', { name: 'Remember this exact command' }).count()).toBe(0);
      // Another device sees the same waiting card; at phone width nothing overflows sideways.
      const phone = await browser.newPage(PHONE_VIEWPORT);
      await phone.goto(`${server.url}/chats/${encodeURIComponent(chatId)}`);
      const phoneCard = await waitingCard(phone, 'call_edit');
      await phoneCard.scrollIntoViewIfNeeded();
      await phone.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-approval-diff-phone.png') });
      expect(
        await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await phone.close();
      await edit.getByRole('button', { name: 'Approve' }).click();
      await edit.locator('.call-status', { hasText: 'done' }).waitFor();
      expect(await readFile(notes, 'utf8')).toBe('# Notes\nmango: ripe\nseason: now\nend\n');

      const write = await waitingCard(page, 'call_write');
      expect(await write.locator('.approval-request .result-caption').textContent()).toBe(
        'Write plan.txt — 2 lines, 10 bytes',
      );
      expect(await write.locator('.approval-content').textContent()).toBe('pick\npack\n');
      await write.getByRole('button', { name: 'Deny' }).click();
      await write.locator('.call-status', { hasText: 'failed: denied' }).waitFor();
      await page.getByText('Edited; the plan was not written.').waitFor();
      expect(await Bun.file(path.join(project, 'plan.txt')).exists()).toBe(false);
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );
});
