/**
 * The chat page as a new user meets it, in real headless Chromium against the real server and a scripted
 * model: at 1280×860 and 390×844 the transcript takes most of the height with the composer on screen
 * (on a phone the Files panel is a sheet that never covers Send); the view follows its end through
 * layout changes, offers "Jump to latest" when scrolled away, and brings a sent message and a waiting
 * approval card into view; a second tab sees a turn started in the first, keeps Send off while it runs,
 * and a send the server refuses keeps its text. At desktop size: signing in at `/` opens Chats, where a
 * first message creates the chat with the first listed model; Escape stops a turn; the composer grows;
 * no focus ring on a heading focused on load; the theme switch; compressed scripts. One pass in dark
 * mode. Screenshots go to `test-results/` (the docs keep a few). Run: `bun test ./tests/web/chat-phone-tabs.e2e.ts`.
 */
import { describe, expect, test } from 'bun:test';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { useApprovalPage } from '../helpers/approval-page.ts';
import { chatBody, chatTextDeltasBody } from '../helpers/scripted-provider-streams.ts';
import {
  PHONE_VIEWPORT,
  SCREENSHOT_DIRECTORY,
  SHORT_DESKTOP_VIEWPORT,
  signIn,
} from '../helpers/web-browser.ts';

const TIMEOUT_MS = 90_000;
const page$ = useApprovalPage(TIMEOUT_MS);
const SIZES = [
  ['desktop', SHORT_DESKTOP_VIEWPORT],
  ['phone', PHONE_VIEWPORT],
] as const;

/** A scripted stream in two chunks, so a `pause` after the first holds the turn running. */
function halves(body: string): string[] {
  const middle = body.indexOf('\n\n') + 2;
  return [body.slice(0, middle), body.slice(middle)];
}

/** A chat whose history overflows any window: one answer of 60 paragraphs. */
async function longChat(title: string): Promise<string> {
  const { api, replay, project } = page$.fixture;
  const created = await api('POST', '/api/chats', {
    provider: 'openai-compatible',
    model: 'test-model',
    title,
    workingDirectory: project,
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  replay.enqueue({
    body: chatTextDeltasBody(Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1}.\n\n`)),
  });
  const turn = await api('POST', `/api/chats/${id}/turns`, { message: 'Write a lot.' });
  expect(await turn.text()).toContain('"type":"done"');
  return id;
}

async function openChat(page: Page, id: string, title: string): Promise<void> {
  await page.goto(`${page$.fixture.server.url}/chats/${encodeURIComponent(id)}`);
  await page.getByRole('heading', { name: title, level: 1 }).waitFor();
}

/** Pixels between the transcript's end and the bottom of its view (0: at the end). */
function distanceFromEnd(page: Page): Promise<number> {
  return page.evaluate(() => {
    const log = document.querySelector('.transcript')!;
    return Math.round(log.scrollHeight - log.scrollTop - log.clientHeight);
  });
}

async function waitAtEnd(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const log = document.querySelector('.transcript')!;
    return log.scrollHeight - log.scrollTop - log.clientHeight <= 1;
  });
}

/** The element at the centre of the Send button is the button: nothing covers it. */
function sendIsUncovered(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const send = [...document.querySelectorAll('button')].find((button) => button.textContent === 'Send')!;
    const box = send.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return hit === send && box.bottom <= window.innerHeight && box.top >= 0;
  });
}

describe('the chat page at desktop and phone size', () => {
  for (const [name, viewport] of SIZES) {
    test(
      `${name}: the transcript takes most of the height, Send is uncovered, Files ${name === 'phone' ? 'is a sheet' : 'is a column'}`,
      async () => {
        const id = await longChat(`Layout ${name}`);
        const page = await page$.fixture.browser.newPage(viewport);
        await signIn(page, page$.fixture.server.url, page$.fixture.server.token);
        await openChat(page, id, `Layout ${name}`);
        await page.getByText('Paragraph 60.').waitFor();
        const height = await page.evaluate(() => document.querySelector('.transcript')!.clientHeight);
        expect(height / viewport.height).toBeGreaterThan(name === 'phone' ? 0.5 : 0.6);
        expect(await sendIsUncovered(page)).toBe(true);
        expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBe(viewport.height);
        await waitAtEnd(page);
        const filesButton = page.getByRole('button', { name: 'Files', exact: true });
        const filesHeading = page.getByRole('heading', { name: 'Files', level: 2 });
        if (name === 'phone') {
          expect(await filesHeading.isVisible()).toBe(false);
          await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-phone.png') });
          await filesButton.click();
          await filesHeading.waitFor();
          await page.waitForFunction(
            () => document.activeElement?.getAttribute('aria-label') === 'Close the files',
          );
          expect(await filesButton.getAttribute('aria-expanded')).toBe('true');
          await page.getByRole('button', { name: 'Refresh' }).waitFor();
          await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-phone-files.png') });
          await page.keyboard.press('Escape');
          await filesHeading.waitFor({ state: 'hidden' });
          expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Files');
          expect(await sendIsUncovered(page)).toBe(true);
        } else {
          expect(await filesButton.isVisible()).toBe(false);
          expect(await filesHeading.isVisible()).toBe(true);
          await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-desktop.png') });
        }
        await page.close();
      },
      TIMEOUT_MS,
    );

    test(
      `${name}: the view follows through layout changes, Jump to latest when scrolled away, a sent message and a waiting card come into view`,
      async () => {
        const id = await longChat(`Scroll ${name}`);
        const page = await page$.fixture.browser.newPage(viewport);
        await signIn(page, page$.fixture.server.url, page$.fixture.server.token);
        await openChat(page, id, `Scroll ${name}`);
        await waitAtEnd(page);
        // A title wrapping onto more lines shrinks the transcript; an image that loads grows an entry.
        await page.evaluate(() => {
          const block = document.createElement('div');
          block.style.height = '82px';
          document.querySelector('.chat-header')!.append(block);
        });
        await waitAtEnd(page);
        await page.evaluate(() => {
          const image = document.createElement('div');
          image.style.height = '621px';
          document.querySelector('.message-assistant:last-of-type')!.append(image);
        });
        await waitAtEnd(page);
        const jump = page.getByRole('button', { name: 'Jump to latest' });
        expect(await jump.isVisible()).toBe(false);

        const box = (await page.locator('.transcript').boundingBox())!;
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await page.mouse.wheel(0, -1500);
        await jump.waitFor();
        const away = await distanceFromEnd(page);
        expect(away).toBeGreaterThan(100);
        // Scrolled away, growth does not move the view.
        await page.evaluate(() => {
          const more = document.createElement('div');
          more.style.height = '300px';
          document.querySelector('.message-assistant:last-of-type')!.append(more);
        });
        await page.waitForFunction((before) => {
          const log = document.querySelector('.transcript')!;
          return Math.round(log.scrollHeight - log.scrollTop - log.clientHeight) === before + 300;
        }, away);
        await jump.click();
        await waitAtEnd(page);
        await jump.waitFor({ state: 'hidden' });

        // Scrolled away again, a message sent and the card of a call waiting for approval come into view.
        await page.mouse.wheel(0, -1500);
        await jump.waitFor();
        let release = () => {};
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        const call = chatBody({
          text: 'Let me run it.',
          calls: [
            { id: `call_${name}`, name: 'bash', fragments: [JSON.stringify({ command: 'echo hello' })] },
          ],
        });
        page$.fixture.replay.enqueue(
          { chunks: halves(call), pause: { afterChunks: 1, until: gate } },
          { body: chatBody({ text: 'Done.' }) },
        );
        await page.getByLabel('Message').fill('Run echo.');
        await page.getByLabel('Message').press('Enter');
        await page.locator('.message-user', { hasText: 'Run echo.' }).waitFor();
        await page.waitForFunction(() => {
          const log = document.querySelector('.transcript')!.getBoundingClientRect();
          const box = [...document.querySelectorAll('.message-user')].at(-1)!.getBoundingClientRect();
          return box.top >= log.top - 1 && box.bottom <= log.bottom + 1;
        });
        await page.mouse.wheel(0, -1500);
        await jump.waitFor();
        release();
        await page.locator('.call-status', { hasText: 'waiting for your approval' }).waitFor();
        await page.waitForFunction(() => {
          const log = document.querySelector('.transcript')!.getBoundingClientRect();
          const card = [...document.querySelectorAll('.call-card')].at(-1)!.getBoundingClientRect();
          return card.bottom <= log.bottom + 1 && card.bottom > log.top;
        });
        await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, `chat-approval-${name}.png`) });
        await page.getByRole('button', { name: 'Approve', exact: true }).click();
        await page.getByText('Done.').waitFor();
        await waitAtEnd(page);
        await page.close();
      },
      TIMEOUT_MS,
    );
  }

  test(
    'a second tab (phone) sees the first tab’s turn as it runs, Send is off meanwhile, and a refused send keeps its text',
    async () => {
      const { browser, server, replay } = page$.fixture;
      const id = await longChat('Two tabs');
      const first = await browser.newPage(SHORT_DESKTOP_VIEWPORT);
      await signIn(first, server.url, server.token);
      await openChat(first, id, 'Two tabs');
      const second = await browser.newPage(PHONE_VIEWPORT);
      await openChat(second, id, 'Two tabs');

      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const pieces = ['Half ', 'of it. ', 'And the rest.'];
      replay.enqueue({ chunks: halves(chatTextDeltasBody(pieces)), pause: { afterChunks: 1, until: gate } });
      await first.getByLabel('Message').fill('From the first tab.');
      const sentAt = performance.now();
      await first.getByLabel('Message').press('Enter');
      await second.locator('.message-user', { hasText: 'From the first tab.' }).waitFor();
      console.log(
        `second tab showed the first tab's message after ${Math.round(performance.now() - sentAt)} ms`,
      );
      expect(await second.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
      expect(await first.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
      release();
      await second.getByText('Half of it. And the rest.').waitFor();
      await second.waitForFunction(() => {
        const send = [...document.querySelectorAll('button')].find((button) => button.textContent === 'Send');
        return send && !send.hasAttribute('disabled');
      });

      // The second tab does not learn of the next turn (its polls fail): the server refuses its send.
      await second.route('**/turns/current', (route) => route.abort());
      let releaseAgain = () => {};
      const secondGate = new Promise<void>((resolve) => {
        releaseAgain = resolve;
      });
      replay.enqueue({
        chunks: halves(chatTextDeltasBody(['Second answer.'])),
        pause: { afterChunks: 1, until: secondGate },
      });
      await first.getByLabel('Message').fill('Again from the first tab.');
      await first.getByLabel('Message').press('Enter');
      await first.locator('.message-user', { hasText: 'Again from the first tab.' }).waitFor();
      await second.getByLabel('Message').fill('From the second tab.');
      await second.getByLabel('Message').press('Enter');
      await second.locator('.turn-status', { hasText: /^Not sent: / }).waitFor();
      expect(await second.getByLabel('Message').inputValue()).toBe('From the second tab.');
      expect(await second.locator('.message-user', { hasText: 'From the second tab.' }).count()).toBe(0);
      await second.unroute('**/turns/current');
      await second.locator('.message-user', { hasText: 'Again from the first tab.' }).waitFor();
      expect(await second.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
      expect(await second.getByLabel('Message').inputValue()).toBe('From the second tab.');
      releaseAgain();
      await second.getByText('Second answer.').waitFor();
      await first.getByText('Second answer.').waitFor();
      await first.close();
      await second.close();
    },
    TIMEOUT_MS,
  );
});

describe('the rest at desktop size', () => {
  test(
    'signing in at / opens Chats; a first message creates the chat with the first listed model and streams its answer',
    async () => {
      const { browser, server, replay, api } = page$.fixture;
      replay.enqueue(
        {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            object: 'list',
            data: ['first-model', 'second-model'].map((id) => ({
              id,
              object: 'model',
              created: 0,
              owned_by: 'x',
            })),
          }),
        },
        { body: chatTextDeltasBody(['Hello ', 'to you.']) },
      );
      const page = await browser.newPage(SHORT_DESKTOP_VIEWPORT);
      await page.goto(`${server.url}/`);
      await page.evaluate(() => localStorage.clear());
      await page.reload();
      await page.getByLabel('API token').fill(server.token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'New chat', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/chats');
      await page.getByText('Chat options: openai-compatible · first-model').waitFor();
      expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('message');
      expect(
        await page.locator('details.new-chat-options').evaluate((d) => (d as HTMLDetailsElement).open),
      ).toBe(false);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'new-chat-desktop.png') });
      await page.getByLabel('Message').fill('Say hello.');
      await page.getByLabel('Message').press('Enter');
      await page.getByText('Hello to you.').waitFor();
      const chatId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!);
      const { chat } = (await (await api('GET', `/api/chats/${chatId}`)).json()) as {
        chat: { model: string; provider: string; workingDirectory: string };
      };
      expect(chat.model).toBe('first-model');
      expect(chat.provider).toBe('openai-compatible');

      // No model: the options open with the reason and the model field has focus; the text stays.
      await page.locator('.sidebar-header').getByRole('link', { name: 'New chat' }).click();
      await page.getByText('Chat options: openai-compatible · first-model').waitFor();
      await page.locator('details.new-chat-options summary').click();
      await page.getByLabel('Model').fill('');
      await page.getByLabel('Message').fill('Anyone there?');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByText(/^Choose a model: type its name under Chat options/).waitFor();
      expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('model');
      expect(await page.getByLabel('Message').inputValue()).toBe('Anyone there?');
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'Escape stops a running turn; the composer grows with its text; a heading focused on load has no ring',
    async () => {
      const { browser, server, replay, api } = page$.fixture;
      const id = await longChat('Escape');
      const page = await browser.newPage(SHORT_DESKTOP_VIEWPORT);
      await signIn(page, server.url, server.token);
      await openChat(page, id, 'Escape');
      const composer = page.getByLabel('Message');
      const before = (await composer.boundingBox())!.height;
      await composer.fill('one\ntwo\nthree\nfour\nfive\nsix');
      await page.waitForFunction(
        (start) =>
          document.querySelector('textarea[name="message"]')!.getBoundingClientRect().height > start + 40,
        before,
      );
      replay.enqueue({
        chunks: halves(chatTextDeltasBody(['never'])),
        pause: { afterChunks: 1, until: new Promise(() => {}) },
      });
      await composer.fill('Wait forever.');
      await composer.press('Enter');
      await page.getByRole('button', { name: 'Cancel' }).waitFor();
      expect((await composer.boundingBox())!.height).toBe(before);
      await composer.press('Escape');
      await page.locator('.notice', { hasText: /cancelled/ }).waitFor();
      const current = (await (await api('GET', `/api/chats/${id}/turns/current`)).json()) as {
        state: string;
      };
      expect(current.state).toBe('cancelled');

      await page.goto(`${server.url}/settings/nowhere`);
      await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
      const heading = await page.evaluate(() => ({
        focused: document.activeElement?.tagName,
        outline: getComputedStyle(document.activeElement!).outlineStyle,
      }));
      expect(heading).toEqual({ focused: 'H1', outline: 'none' });
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'the theme switch: dark, light and back to the system scheme (dark here), kept after a reload; scripts come compressed',
    async () => {
      const { browser, server } = page$.fixture;
      const id = await longChat('Dark');
      const page = await browser.newPage(PHONE_VIEWPORT);
      await page.emulateMedia({ colorScheme: 'dark' });
      await signIn(page, server.url, server.token);
      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const DARK = 'rgb(22, 22, 20)';
      const LIGHT = 'rgb(247, 247, 245)';
      expect(await background()).toBe(DARK);
      await page.getByLabel('Theme').selectOption('light');
      expect(await background()).toBe(LIGHT);
      await page.reload();
      await page.getByRole('heading', { name: 'Tools', level: 1 }).waitFor();
      expect(await background()).toBe(LIGHT);
      await page.getByLabel('Theme').selectOption('system');
      expect(await background()).toBe(DARK);
      await openChat(page, id, 'Dark');
      await page.getByText('Paragraph 60.').waitFor();
      expect(await sendIsUncovered(page)).toBe(true);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-phone-dark.png') });

      const script = await page.evaluate(async () => {
        const response = await fetch('/app.js');
        return { status: response.status, vary: response.headers.get('vary') };
      });
      expect(script).toEqual({ status: 200, vary: 'Accept-Encoding' });
      const entry = await page.evaluate(
        () =>
          (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
            .filter((timing) => timing.name.endsWith('/app.js'))
            .map((timing) => ({ transfer: timing.encodedBodySize, decoded: timing.decodedBodySize }))[0]!,
      );
      console.log(`app.js: ${entry.transfer} bytes transferred, ${entry.decoded} decoded`);
      expect(entry.transfer).toBeLessThan(entry.decoded / 2);
      await page.close();
    },
    TIMEOUT_MS,
  );
});
