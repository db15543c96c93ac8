/**
 * The transcript's scroll position while a 200 KB answer streams in 2,000 deltas, in real headless
 * Chromium against the real server: the scripted provider holds the stream half-way (after 1,000
 * deltas), the reader acts, then the other 1,000 deltas arrive. A reader at the bottom stays pinned to
 * the bottom; a reader who scrolled up to read earlier text keeps exactly that position, frame by frame,
 * while the rest streams in. Run on its own: `bun test ./tests/web/chat-scroll.e2e.ts`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { bigMarkdownAnswerPieces } from '../helpers/big-markdown-answer.ts';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { chatTextDeltasBody } from '../helpers/scripted-provider-streams.ts';
import {
  launchTestBrowser,
  SCREENSHOT_DIRECTORY,
  SHORT_DESKTOP_VIEWPORT,
  signIn,
  startWebTestServer,
  type TestBrowser,
  type WebTestServer,
} from '../helpers/web-browser.ts';

const TIMEOUT_MS = 120_000;
let replay: ReplayServer;
let server: WebTestServer;
let browser: TestBrowser;

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

interface Geometry {
  scrollTop: number;
  clientHeight: number;
  scrollHeight: number;
}

async function geometry(page: Page): Promise<Geometry> {
  return page.evaluate(() => {
    const log = document.querySelector('.transcript')!;
    return { scrollTop: log.scrollTop, clientHeight: log.clientHeight, scrollHeight: log.scrollHeight };
  });
}

/** Waits until the transcript's height and scroll position have not changed for 10 frames. */
async function settle(page: Page): Promise<void> {
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const log = document.querySelector('.transcript')!;
        let last = '';
        let still = 0;
        const frame = () => {
          const now = `${log.scrollHeight} ${log.scrollTop}`;
          still = now === last ? still + 1 : 0;
          last = now;
          if (still >= 10) resolve();
          else requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      }),
  );
}

/**
 * A new chat whose answer (the 200 KB one) is held after 1,000 of its 2,000 deltas, with the page
 * showing those first 1,000 and settled; `release` lets the rest stream, `finished` waits for the end.
 */
async function streamHeldHalfWay(title: string) {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  // The body's writes: the role chunk, then one per delta.
  replay.enqueue({
    body: chatTextDeltasBody(bigMarkdownAnswerPieces()),
    pause: { afterChunks: 1001, until: held },
  });
  const created = await fetch(`${server.url}/api/chats`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'openai-compatible', model: 'test-model', title }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const page = await browser.newPage(SHORT_DESKTOP_VIEWPORT);
  await signIn(page, server.url, server.token);
  await page.goto(`${server.url}/chats/${id}`);
  await page.getByRole('heading', { name: title, level: 1 }).waitFor();
  await page.getByLabel('Message').fill('Stream a big answer.');
  await page.getByLabel('Message').press('Enter');
  await page.locator('.transcript').getByText('Sentence 0999', { exact: false }).waitFor({ timeout: 60_000 });
  await settle(page);
  expect(await page.locator('.transcript').getByText('Sentence 1001', { exact: false }).count()).toBe(0);
  const finished = async () => {
    await page
      .locator('.transcript')
      .getByText('Sentence 1999', { exact: false })
      .waitFor({ timeout: 60_000 });
    await page
      .getByRole('button', { name: 'Send' })
      .and(page.locator(':not([disabled])'))
      .waitFor({ timeout: 60_000 });
    await settle(page);
  };
  return { page, release, finished };
}

describe('the transcript’s scroll position while 200 KB streams in 2,000 deltas', () => {
  test(
    'a reader at the bottom stays pinned to the bottom, half-way and at the end',
    async () => {
      const { page, release, finished } = await streamHeldHalfWay('Pinned reader');
      const half = await geometry(page);
      // The transcript is taller since the composer starts at two lines: still many views of text.
      expect(half.scrollHeight).toBeGreaterThan(half.clientHeight * 8);
      expect(half.scrollTop + half.clientHeight).toBe(half.scrollHeight);
      release();
      await finished();
      const end = await geometry(page);
      expect(end.scrollHeight).toBeGreaterThan(half.scrollHeight + half.clientHeight * 8);
      expect(end.scrollTop + end.clientHeight).toBe(end.scrollHeight);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-scroll-pinned-desktop.png') });
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'a reader who scrolled up mid-stream keeps exactly that position while the rest streams in',
    async () => {
      const { page, release, finished } = await streamHeldHalfWay('Reading reader');
      const half = await geometry(page);
      expect(half.scrollTop + half.clientHeight).toBe(half.scrollHeight);
      // The reader scrolls up with the wheel, as a person would, to read earlier text.
      const box = (await page.locator('.transcript').boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.wheel(0, -3000);
      await settle(page);
      const reading = await geometry(page);
      expect(reading.scrollHeight).toBe(half.scrollHeight);
      expect(reading.scrollHeight - reading.clientHeight - reading.scrollTop).toBeGreaterThanOrEqual(2000);
      // Remember the block at the top edge of the viewport and where it sits, and every frame's position.
      const anchor = await page.evaluate(() => {
        const log = document.querySelector('.transcript')!;
        const top = log.getBoundingClientRect().top;
        const chunk = [...log.querySelectorAll('.markdown-chunk')].find((candidate) => {
          const rect = candidate.getBoundingClientRect();
          return rect.top <= top && rect.bottom > top;
        })!;
        const record = window as unknown as { __anchor: Element; __positions: number[]; __stop: boolean };
        record.__anchor = chunk;
        record.__positions = [];
        record.__stop = false;
        const frame = () => {
          record.__positions.push(log.scrollTop);
          if (!record.__stop) requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
        return { text: chunk.textContent ?? '', offset: chunk.getBoundingClientRect().top - top };
      });
      expect(anchor.text).toContain('Sentence');

      release();
      await finished();
      const end = await geometry(page);
      expect(end.scrollHeight).toBeGreaterThan(half.scrollHeight + half.clientHeight * 8);
      expect(end.scrollTop).toBe(reading.scrollTop);
      const after = await page.evaluate(() => {
        const record = window as unknown as { __anchor: Element; __positions: number[]; __stop: boolean };
        record.__stop = true;
        const top = document.querySelector('.transcript')!.getBoundingClientRect().top;
        return {
          text: record.__anchor.textContent ?? '',
          offset: record.__anchor.getBoundingClientRect().top - top,
          connected: record.__anchor.isConnected,
          frames: record.__positions.length,
          positions: [...new Set(record.__positions)],
        };
      });
      expect(after.connected).toBe(true);
      expect(after.text).toBe(anchor.text);
      expect(after.offset).toBe(anchor.offset);
      expect(after.frames).toBeGreaterThan(10);
      expect(after.positions).toEqual([reading.scrollTop]);
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-scroll-reading-desktop.png') });
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );
});
