/**
 * Reruns and the model picker on the chat page in real headless Chromium against the real server,
 * whose OpenAI-compatible provider is a scripted replay server (`tests/helpers/approval-page.ts`, bash
 * asks before every call): Regenerate after an answer that ran a command asks first (its effects stay),
 * and its rerun waits for an approval that a second tab watching the chat answers, both tabs ending on
 * the new answer; Edit, by keyboard, replaces a message and what followed; Retry after a provider error;
 * the header's model picker sets the next turn's model. Run by `npm run test:e2e`.
 */
import { describe, expect, test } from 'bun:test';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { send, transcriptText, useApprovalPage, waitingCard } from '../helpers/approval-page.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import { SCREENSHOT_DIRECTORY, signIn } from '../helpers/web-browser.ts';

const TIMEOUT_MS = 60_000;
const approvals = useApprovalPage(TIMEOUT_MS);

const EFFECTS =
  'What tools did in the replaced part (files written, commands run) is not undone; the model is told those calls ran.';

/** The user messages of the last model request, as the provider received them. */
function userMessagesSent(): string[] {
  const posts = approvals.fixture.replay.requests.filter((request) => request.method === 'POST');
  const body = posts.at(-1)?.body as { messages?: { role: string; content?: unknown }[] } | undefined;
  return (body?.messages ?? [])
    .filter((message) => message.role === 'user')
    .map((message) =>
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
    );
}

async function userBubbles(page: Page): Promise<string[]> {
  return page.locator('.message-user').allTextContents();
}

describe('reruns on the chat page in Chromium', () => {
  test(
    'Regenerate asks first when the answer ran a command; its rerun waits for an approval a second tab answers',
    async () => {
      const { fixture } = approvals;
      fixture.scriptBash('call_first', 'echo first', 'First answer.');
      const page = await fixture.browser.newPage();
      const chatId = await fixture.openNewChat(page, 'Regenerate chat');
      await send(page, 'Run it');
      await (await waitingCard(page, 'call_first')).getByRole('button', { name: 'Approve' }).click();
      await page.getByText('First answer.').waitFor();
      // Between turns: no Retry, one Regenerate.
      expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(0);

      fixture.scriptBash('call_second', 'echo second', 'Second answer.');
      await page.getByRole('button', { name: 'Regenerate' }).click();
      const dialog = page.getByRole('dialog', { name: 'Regenerate the answer?' });
      await dialog.waitFor();
      expect(await dialog.getByText(EFFECTS).count()).toBe(1);
      await dialog.getByRole('button', { name: 'Regenerate' }).click();
      await waitingCard(page, 'call_second');
      expect(await page.locator('article[data-call-id="call_first"]').count()).toBe(0);
      expect(await page.getByText('First answer.').count()).toBe(0);
      expect(await userBubbles(page)).toEqual(['You: Run it']);
      // No action offers itself while the rerun runs.
      expect(await page.getByRole('button', { name: 'Regenerate' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /^Edit your message/ }).count()).toBe(0);
      // The model was told that the replaced call ran.
      const [sent] = userMessagesSent();
      expect(sent?.startsWith('[Note from Mango Tools, not written by the user:')).toBe(true);
      expect(sent).toContain('- bash {"command":"echo first"}');
      expect(sent?.endsWith('\n\nRun it')).toBe(true);

      // A second tab watches the rerun: the replaced part is gone there too, and it answers.
      const watcher = await fixture.browser.newPage();
      await signIn(watcher, fixture.server.url, fixture.server.token);
      await watcher.goto(`${fixture.server.url}/chats/${encodeURIComponent(chatId)}`);
      const watched = await waitingCard(watcher, 'call_second');
      expect(await watcher.locator('article[data-call-id="call_first"]').count()).toBe(0);
      expect(await userBubbles(watcher)).toEqual(['You: Run it']);
      await watched.getByRole('button', { name: 'Approve' }).click();

      for (const tab of [page, watcher]) {
        await tab.getByText('Second answer.').waitFor();
        await tab.locator('article[data-call-id="call_second"] .call-status', { hasText: 'done' }).waitFor();
        expect(await tab.getByText('First answer.').count()).toBe(0);
      }
      await page.getByRole('button', { name: 'Regenerate' }).waitFor();
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-regenerated-desktop.png') });
      const live = await transcriptText(page);
      await page.reload();
      await page.getByText('Second answer.').waitFor();
      expect(await transcriptText(page)).toEqual(live);
      expect(fixture.replay.failures).toEqual([]);
      await watcher.close();
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'Edit by keyboard: Shift+Tab reaches a message’s Edit, the form says what it replaces, Enter sends it',
    async () => {
      const { fixture } = approvals;
      fixture.replay.enqueue(
        { body: chatBody({ text: 'Answer one.' }) },
        { body: chatBody({ text: 'Answer two.' }) },
      );
      const page = await fixture.browser.newPage();
      await fixture.openNewChat(page, 'Edit chat');
      await send(page, 'Question one');
      await page.getByText('Answer one.').waitFor();
      await send(page, 'Question two');
      await page.getByText('Answer two.').waitFor();
      await page.getByRole('button', { name: 'Regenerate' }).waitFor();

      // From the composer backwards: Regenerate, the second message's Edit, the first one's.
      await page.getByLabel('Message').focus();
      const focusedName = () =>
        page.evaluate(() => {
          const focused = document.activeElement as HTMLElement | null;
          return focused?.textContent?.trim() || focused?.getAttribute('title') || '';
        });
      const reached: string[] = [];
      for (let step = 0; step < 3; step += 1) {
        await page.keyboard.press('Shift+Tab');
        reached.push(await focusedName());
      }
      expect(reached).toEqual([
        'Regenerate',
        'Edit your message “Question two”',
        'Edit your message “Question one”',
      ]);
      await page.keyboard.press('Enter');
      const editor = page.getByRole('textbox', { name: 'Edit your message' });
      await editor.waitFor();
      expect(await editor.evaluate((node) => node === document.activeElement)).toBe(true);
      expect(await editor.inputValue()).toBe('Question one');
      expect(await page.locator('.message-edit-note').textContent()).toBe(
        `Sending replaces this message and everything after it. ${EFFECTS}`,
      );
      // Escape leaves the message as it was.
      await page.keyboard.press('Escape');
      await editor.waitFor({ state: 'detached' });
      expect(await userBubbles(page)).toEqual(['You: Question one', 'You: Question two']);

      await page.getByRole('button', { name: 'Edit your message “Question one”' }).click();
      await editor.fill('Question one, better');
      fixture.replay.enqueue({ body: chatBody({ text: 'Better answer.' }) });
      await editor.press('Enter');
      await page.getByText('Better answer.').waitFor();
      await page.getByRole('button', { name: 'Regenerate' }).waitFor();
      expect(await userBubbles(page)).toEqual(['You: Question one, better']);
      expect(await page.getByText('Answer one.').count()).toBe(0);
      expect(await page.getByText('Answer two.').count()).toBe(0);
      // Nothing that ran was replaced: the model gets the edited text alone.
      expect(userMessagesSent()).toEqual(['Question one, better']);
      const live = await transcriptText(page);
      await page.reload();
      await page.getByText('Better answer.').waitFor();
      expect(await transcriptText(page)).toEqual(live);
      expect(fixture.replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'Retry after a provider error runs the message again; afterwards the chat offers Regenerate',
    async () => {
      const { fixture } = approvals;
      fixture.replay.enqueue({
        status: 400,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ error: { message: 'model overloaded', type: 'invalid_request_error' } }),
      });
      const page = await fixture.browser.newPage();
      await fixture.openNewChat(page, 'Retry chat');
      await send(page, 'Try this');
      await page.locator('.notice-error').first().waitFor();
      const retry = page.getByRole('button', { name: 'Retry' });
      await retry.waitFor();
      expect(await page.getByRole('button', { name: 'Regenerate' }).count()).toBe(0);

      fixture.replay.enqueue({ body: chatBody({ text: 'It worked this time.' }) });
      await retry.click();
      await page.getByText('It worked this time.').waitFor();
      await page.getByRole('button', { name: 'Regenerate' }).waitFor();
      expect(await page.locator('.notice-error').count()).toBe(0);
      expect(await userBubbles(page)).toEqual(['You: Try this']);
      expect(userMessagesSent()).toEqual(['Try this']);
      await page.reload();
      await page.getByText('It worked this time.').waitFor();
      expect(await page.locator('.notice-error').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Regenerate' }).count()).toBe(1);
      expect(fixture.replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    "the header's model picker lists the provider's models and sets the next turn's model",
    async () => {
      const { fixture } = approvals;
      const page = await fixture.browser.newPage();
      await fixture.openNewChat(page, 'Model chat');
      expect(await page.getByText('Model (openai-compatible)').count()).toBe(1);
      const field = page.getByRole('combobox', { name: 'Model (openai-compatible)' });
      expect(await field.inputValue()).toBe('test-model');
      fixture.replay.enqueue({
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          object: 'list',
          data: [
            { id: 'test-model', object: 'model' },
            { id: 'bigger-model', object: 'model' },
          ],
        }),
      });
      await field.focus();
      await page.locator('.chat-model-input[data-models="loaded"]').waitFor();
      expect(
        await page
          .locator('.chat-model-picker datalist option')
          .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value)),
      ).toEqual(['bigger-model', 'test-model']);
      await field.fill('bigger-model');
      await field.press('Enter');
      await page.locator('[aria-live="polite"]', { hasText: 'The next turns use bigger-model.' }).waitFor();

      fixture.replay.enqueue({ body: chatBody({ text: 'Answered by the bigger model.' }) });
      await send(page, 'Hello');
      await page.getByText('Answered by the bigger model.').waitFor();
      const posts = fixture.replay.requests.filter((request) => request.method === 'POST');
      expect((posts.at(-1)!.body as { model?: string }).model).toBe('bigger-model');

      await field.fill('');
      await field.press('Enter');
      await page.getByRole('alert').filter({ hasText: 'Could not change the model' }).waitFor();
      expect(await page.locator('.chat-model-picker .error-text').textContent()).toBe(
        'Could not change the model: model must be 1–200 characters, got 0.',
      );
      expect(fixture.replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );
});
