/**
 * Answers on the chat page in real headless Chromium against the real server and a scripted provider
 * (`tests/helpers/approval-page.ts`): "Always allow…" saves the edited prefix and "Remember this exact
 * command" the command, in the tool's settings, and the card names the saved rule after a reload too; a
 * call behind a waiting one of its response says it waits for that one's approval, live and after a
 * reload; an answer that comes too late (the call was answered elsewhere: 409) shows the server's
 * message in the card, its buttons go and focus stays on the card; edit_file waits with a line diff and
 * write_file with the content. Screenshots go to `test-results/`. Run by `npm run test:e2e`.
 */
import { describe, expect, test } from 'bun:test';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { send, useApprovalPage, waitingCard } from '../helpers/approval-page.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import { PHONE_VIEWPORT, SCREENSHOT_DIRECTORY } from '../helpers/web-browser.ts';

const TIMEOUT_MS = 60_000;
const approvals = useApprovalPage(TIMEOUT_MS);

describe('answers on the chat page in Chromium: rules, order, late answers, files', () => {
  test(
    '"Always allow…" saves the edited prefix and "Remember this exact command" the command, in bash’s settings',
    async () => {
      approvals.fixture.scriptBash('call_prefix', 'git status --short', 'Clean.');
      const page = await approvals.fixture.browser.newPage();
      await approvals.fixture.openNewChat(page, 'Rules chat');
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
      // With no other call waiting, focus goes back to the composer rather than to the page.
      expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('message');
      await card.locator('.call-status', { hasText: 'done' }).waitFor();
      expect(await card.locator('.call-approval').textContent()).toBe(
        'Approved by you. Saved git status in autoApprovedCommands: it runs without asking from now on.',
      );
      expect((await approvals.fixture.toolParameters('bash')).autoApprovedCommands).toEqual(['git status']);
      await page.getByText('Clean.').waitFor();
      // A reload tells the same: the rule is in the turn's stored trace.
      await page.reload();
      await page.getByText('Clean.').waitFor();
      expect(await page.locator('article[data-call-id="call_prefix"] .call-approval').textContent()).toBe(
        'Approved by you. Saved git status in autoApprovedCommands: it runs without asking from now on.',
      );

      const exact = 'ls -la | head -3';
      approvals.fixture.scriptBash('call_exact', exact, 'Listed.');
      await send(page, 'List');
      const exactCard = await waitingCard(page, 'call_exact');
      await exactCard.getByRole('button', { name: 'Remember this exact command' }).click();
      await exactCard.locator('.call-status', { hasText: 'done' }).waitFor();
      expect((await approvals.fixture.toolParameters('bash')).autoApprovedExactCommands).toEqual([exact]);
      await page.getByText('Listed.').waitFor();
      expect(approvals.fixture.replay.failures).toEqual([]);
      await approvals.fixture.saveTool('bash', {
        approval: 'always',
        autoApprovedCommands: [],
        autoApprovedExactCommands: [],
      });
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'a call behind a waiting one of the same response says it waits for that one’s approval',
    async () => {
      approvals.fixture.replay.enqueue(
        {
          body: chatBody({
            calls: [
              { id: 'call_first', name: 'bash', fragments: [JSON.stringify({ command: 'echo one' })] },
              { id: 'call_second', name: 'bash', fragments: [JSON.stringify({ command: 'echo two' })] },
            ],
          }),
        },
        { body: chatBody({ text: 'Both ran.' }) },
      );
      const page = await approvals.fixture.browser.newPage();
      await approvals.fixture.openNewChat(page, 'Queued chat');
      await send(page, 'Echo twice');
      const first = await waitingCard(page, 'call_first');
      const second = page.locator('article[data-call-id="call_second"]');
      const queuedText = "waiting for the earlier call's approval";
      await second.locator('.call-status', { hasText: queuedText }).waitFor();
      expect(await second.getAttribute('aria-label')).toBe(`Tool call bash, ${queuedText}`);
      expect(await second.getByRole('button').count()).toBe(0);
      // The same after a reload.
      await page.reload();
      await waitingCard(page, 'call_first');
      await second.locator('.call-status', { hasText: queuedText }).waitFor();

      await first.getByRole('button', { name: 'Approve' }).click();
      await first.locator('.call-status', { hasText: 'done' }).waitFor();
      await waitingCard(page, 'call_second');
      await second.getByRole('button', { name: 'Approve' }).click();
      await page.getByText('Both ran.').waitFor();
      expect(await second.locator('.call-status').textContent()).toBe('done');
      expect(approvals.fixture.replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'an answer that comes too late shows the server’s message in the card, and the buttons go',
    async () => {
      approvals.fixture.scriptBash('call_twice', 'echo answered-elsewhere', 'Ran once.');
      const page = await approvals.fixture.browser.newPage();
      const chatId = await approvals.fixture.openNewChat(page, 'Late answer chat');
      await send(page, 'Echo');
      await waitingCard(page, 'call_twice');

      // A second tab whose stream is held back, so it still shows the buttons after the answer.
      const other = await approvals.fixture.browser.newPage();
      let release = () => {};
      let held = Promise.resolve();
      const hold = () => {
        held = new Promise<void>((resolve) => {
          release = resolve;
        });
      };
      hold();
      await other.route(
        (url) => url.pathname.endsWith('/turns/current/events'),
        async (route) => {
          await held;
          await route.continue();
        },
      );
      await other.goto(`${approvals.fixture.server.url}/chats/${encodeURIComponent(chatId)}`);
      const card = await waitingCard(other, 'call_twice');

      const answered = await approvals.fixture.api('POST', `/api/chats/${chatId}/approvals/call_twice`, {
        decision: 'approve',
      });
      expect(answered.status).toBe(200);
      await page.getByText('Ran once.').waitFor();

      await card.getByRole('button', { name: 'Approve' }).click();
      await card.getByRole('alert').waitFor();
      expect(await card.getByRole('alert').textContent()).toBe(
        'The call "call_twice" (bash) no longer waits for approval: it was already approved.',
      );
      expect(await card.getByRole('button').count()).toBe(0);
      expect(await card.getByRole('textbox').count()).toBe(0);
      // Focus stays on the card rather than falling to the page.
      expect(await other.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.callId)).toBe(
        'call_twice',
      );
      await other.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-approval-late-answer.png') });

      // Once the stream comes, the card tells how the call ended.
      release();
      await card.locator('.call-status', { hasText: 'done' }).waitFor();
      await other.getByText('Ran once.').waitFor();
      expect(await card.locator('.call-approval').textContent()).toBe('Approved by you.');
      expect(approvals.fixture.toolMessageSent('call_twice')).toContain('answered-elsewhere');

      // Through "Always allow…": the dialog closes, the card says why, and no rule is saved.
      approvals.fixture.scriptBash('call_rule_late', 'echo rule-late', 'Denied elsewhere.');
      hold();
      await send(page, 'Echo again');
      await waitingCard(page, 'call_rule_late');
      await other.reload();
      const ruleCard = await waitingCard(other, 'call_rule_late');
      const denied = await approvals.fixture.api('POST', `/api/chats/${chatId}/approvals/call_rule_late`, {
        decision: 'deny',
      });
      expect(denied.status).toBe(200);
      await page.getByText('Denied elsewhere.').waitFor();
      await ruleCard.getByRole('button', { name: 'Always allow…' }).click();
      const dialog = other.getByRole('dialog', { name: 'Always allow these bash commands?' });
      await dialog.getByRole('button', { name: 'Allow and run' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await ruleCard.getByRole('alert').textContent()).toBe(
        'The call "call_rule_late" (bash) no longer waits for approval: it was already denied.',
      );
      expect(await ruleCard.getByRole('button').count()).toBe(0);
      expect(await other.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.callId)).toBe(
        'call_rule_late',
      );
      expect((await approvals.fixture.toolParameters('bash')).autoApprovedCommands).toEqual([]);
      release();
      await ruleCard.locator('.call-status', { hasText: 'failed: denied' }).waitFor();
      expect(approvals.fixture.replay.failures).toEqual([]);
      await other.close();
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'edit_file waits with the path and a line diff; write_file with the path and the content',
    async () => {
      const notes = path.join(approvals.fixture.project, 'notes.md');
      await writeFile(notes, '# Notes\nmango: green\nend\n');
      approvals.fixture.replay.enqueue(
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
      const page = await approvals.fixture.browser.newPage();
      const chatId = await approvals.fixture.openNewChat(page, 'Files approval chat');
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
      const phone = await approvals.fixture.browser.newPage(PHONE_VIEWPORT);
      await phone.goto(`${approvals.fixture.server.url}/chats/${encodeURIComponent(chatId)}`);
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
      expect(await Bun.file(path.join(approvals.fixture.project, 'plan.txt')).exists()).toBe(false);
      expect(approvals.fixture.replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );
});
