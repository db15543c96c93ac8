/**
 * Approvals on the chat page in real headless Chromium against the real server, whose OpenAI-compatible
 * provider talks to a scripted replay server (`tests/helpers/approval-page.ts`): a waiting bash card
 * shows the exact command and the status line says the chat waits; Approve runs it and its result
 * appears; Deny with a reason shows the denial and the model's next request carries the reason; an
 * unanswered call is denied when its time is up; Cancel while waiting cancels the call without running
 * it; a reload while waiting still shows the buttons and answering works; by keyboard, Tab from the
 * composer reaches Review, then Approve, and Enter answers. Rules, order, late answers and file tools:
 * chat-approval-answers.e2e.ts. Screenshots go to `test-results/`. Run by `npm run test:e2e`.
 */
import { describe, expect, test } from 'bun:test';
import path from 'node:path';
import { send, transcriptText, useApprovalPage, waitingCard } from '../helpers/approval-page.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { SCREENSHOT_DIRECTORY, SHORT_DESKTOP_VIEWPORT } from '../helpers/web-browser.ts';

const TIMEOUT_MS = 60_000;
const approvals = useApprovalPage(TIMEOUT_MS);

describe('approvals on the chat page in Chromium', () => {
  test(
    'a waiting card shows the exact command and the chat says it waits; Approve runs it and its result appears',
    async () => {
      const command = "printf 'mango %s\\n' ripe";
      approvals.fixture.scriptBash('call_ok', command, 'It printed mango ripe.');
      const page = await approvals.fixture.browser.newPage(SHORT_DESKTOP_VIEWPORT);
      await approvals.fixture.openNewChat(page, 'Approve chat');
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
      const beforeAnswer = approvals.fixture.requestCount();
      expect(beforeAnswer).toBe(1);

      await card.getByRole('button', { name: 'Approve' }).click();
      await card.locator('.call-status', { hasText: 'done' }).waitFor();
      await page.getByText('It printed mango ripe.').waitFor();
      expect(await card.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      expect(await card.locator('.call-approval').textContent()).toBe('Approved by you.');
      // Answered, the card stays open: the command judged, then its output.
      expect(await card.locator('details.call-row').getAttribute('open')).toBe('');
      expect(await card.locator('.call-request .approval-command').textContent()).toBe(command);
      expect(await card.locator('.result-shell').textContent()).toContain('mango ripe');
      expect(approvals.fixture.toolMessageSent('call_ok')).toContain('mango ripe');
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
      expect(approvals.fixture.replay.failures).toEqual([]);
      expect(approvals.fixture.browser.offOriginRequests).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'Deny with a reason shows the denial, and the model reads the reason',
    async () => {
      approvals.fixture.scriptBash('call_no', 'rm -rf build', 'Understood, I kept the build.');
      const page = await approvals.fixture.browser.newPage();
      await approvals.fixture.openNewChat(page, 'Deny chat');
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
      expect(approvals.fixture.toolMessageSent('call_no')).toContain(
        'The user denied this call: keep the build, it is slow to make',
      );
      expect(approvals.fixture.replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'unanswered, the call is denied when its time is up: the card says so and the buttons go',
    async () => {
      await approvals.fixture.saveTool('bash', { approval: 'always', approvalTimeoutSeconds: 10 });
      approvals.fixture.scriptBash('call_late', 'echo too-late', 'Nobody answered, so I did not run it.');
      const page = await approvals.fixture.browser.newPage();
      await approvals.fixture.openNewChat(page, 'Timeout chat');
      await send(page, 'Echo, if you may');
      const card = await waitingCard(page, 'call_late');
      await card.locator('.call-status', { hasText: 'failed: denied' }).waitFor({ timeout: 25_000 });
      expect(await card.locator('.call-error .error-text').textContent()).toBe(
        'Nobody answered the approval question within 10 seconds (approvalTimeoutSeconds), so the call was denied and not run.',
      );
      expect(await card.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      await page.getByText('Nobody answered, so I did not run it.').waitFor();
      expect(await page.locator('.turn-status').textContent()).toBe('');
      expect(approvals.fixture.replay.failures).toEqual([]);
      await approvals.fixture.saveTool('bash', { approval: 'always', approvalTimeoutSeconds: 600 });
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'Cancel while a call waits ends the turn: the call is cancelled, never run, and its buttons go',
    async () => {
      const marker = path.join(approvals.fixture.project, 'cancelled-marker');
      // Only the call is scripted: a cancelled turn asks the model nothing more.
      approvals.fixture.replay.enqueue({
        body: chatBody({
          calls: [
            { id: 'call_cancel', name: 'bash', fragments: [JSON.stringify({ command: `touch ${marker}` })] },
          ],
        }),
      });
      const requestsBefore = approvals.fixture.requestCount();
      const page = await approvals.fixture.browser.newPage();
      await approvals.fixture.openNewChat(page, 'Cancel chat');
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
      expect(approvals.fixture.requestCount()).toBe(requestsBefore + 1);
      expect(approvals.fixture.replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'a reload while a call waits still shows its card and buttons in place, and answering works',
    async () => {
      approvals.fixture.scriptBash('call_reload', 'echo after-reload', 'Printed after-reload.');
      const page = await approvals.fixture.browser.newPage();
      await approvals.fixture.openNewChat(page, 'Reload chat');
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
            node.classList.contains('call-group') ? 'card' : (node.textContent ?? '').trim(),
          ),
        );
      const expected = ['You: Echo', 'Model: Let me run it.', 'card'];
      await waitUntil(async () => JSON.stringify(await order()) === JSON.stringify(expected), 8_000);
      expect(await order()).toEqual(expected);
      expect(await page.locator('article[data-call-id="call_reload"]').count()).toBe(1);
      await page
        .locator('.turn-status', { hasText: 'Waiting for your approval: bash: echo after-reload' })
        .waitFor();

      await card.getByRole('button', { name: 'Approve' }).click();
      await card.locator('.call-status', { hasText: 'done' }).waitFor();
      await page.getByText('Printed after-reload.').waitFor();
      expect(await card.locator('.result-shell').textContent()).toContain('after-reload');
      expect(approvals.fixture.replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'by keyboard: Tab from the composer reaches Review, Review leads to the card, Tab reaches Approve, Enter answers',
    async () => {
      approvals.fixture.scriptBash('call_keys', 'sleep 2', 'Slept by keyboard.');
      const page = await approvals.fixture.browser.newPage();
      await approvals.fixture.openNewChat(page, 'Keyboard chat');
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
      expect(approvals.fixture.replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );
});
