/**
 * Math, task lists and Copy button names in real headless Chromium against the real server, whose
 * OpenAI-compatible provider talks to a scripted replay server on 127.0.0.1. An answer without math
 * fetches nothing of KaTeX; the first answer with math, streamed in small pieces, fetches KaTeX's chunk,
 * stylesheet and fonts from this server only, renders MathML (no HTML layout, no style attribute), shows
 * invalid TeX as its source in the error style, refuses `\href`/`\url`/`\html…`, and trips no content
 * security policy. Task items are disabled checkboxes named by their text; each Copy button is named
 * after its block. Run by `npm run test:e2e`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { MATHML_TAGS } from '../../web/math-typesetter.ts';
import { type ReplayServer, sseFromEvents, startReplayServer } from '../helpers/replay-server.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import {
  callApi,
  launchTestBrowser,
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
let project: string;

beforeAll(async () => {
  replay = startReplayServer();
  server = await startWebTestServer({
    environment: { OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1` },
  });
  project = path.join(server.root, 'project');
  await mkdir(project);
  browser = await launchTestBrowser(server.url);
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await replay?.close();
}, 30_000);

async function openNewChat(page: Page, title: string): Promise<void> {
  const response = await callApi(server, 'POST', '/api/chats', {
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

/** A Chat Completions answer streamed as `text` cut into pieces of `size` characters. */
function streamedText(text: string, size: number): string {
  const chunk = (delta: unknown, finishReason: string | null = null) => ({
    id: 'chatcmpl-math',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'test-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  const pieces: unknown[] = [];
  for (let start = 0; start < text.length; start += size)
    pieces.push(chunk({ content: text.slice(start, start + size) }));
  return sseFromEvents([chunk({ role: 'assistant', content: '' }), ...pieces, chunk({}, 'stop')], {
    done: true,
  });
}

async function send(page: Page, message: string): Promise<void> {
  await page.getByLabel('Message').fill(message);
  await page.getByLabel('Message').press('Enter');
}

/**
 * Records `securitypolicyviolation` events of every document the page loads, from before its first
 * script runs; the returned function reads those of the current one.
 */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const record = window as unknown as { __violations: string[] };
    record.__violations = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      record.__violations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sample}`);
    });
  });
  return () => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
}

/** The build's script that holds KaTeX, found by its content. */
function katexChunkName(): string {
  const names = [...(server.server.deps.webApp?.files.entries() ?? [])]
    .filter(
      ([name, file]) =>
        name.endsWith('.js') && new TextDecoder().decode(file.bytes).includes('KaTeX parse error'),
    )
    .map(([name]) => name);
  expect(names.length).toBe(1);
  return names[0]!;
}

/** A sum far wider than a phone. */
const LONG_SUM = (letter: string) =>
  Array.from({ length: 40 }, (_, index) => `${letter}_{${index + 1}}`).join(' + ');
const PLAIN_ANSWER = 'The plan costs $5 and $10 per seat, so **$15** in all.';
const MATH_ANSWER = [
  'Euler: $e^{i\\pi} + 1 = 0$, and \\(x^2\\) too.',
  '',
  '$$',
  '\\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}',
  '$$',
  '',
  'Broken: $\\frac{a}{$ stays source.',
  '',
  'Refused: $\\href{javascript:window.__pwned=1}{click}$ $\\url{javascript:window.__pwned=2}$ ' +
    '$\\htmlClass{copy-code}{x}$ $\\htmlStyle{color:red}{y}$.',
  '',
  'Styled by KaTeX, stripped here: $\\fcolorbox{red}{yellow}{z}$ $\\pmb{w}$.',
  '',
  `Long, inline: $${LONG_SUM('a')}$ and displayed:`,
  '',
  `$$${LONG_SUM('b')}$$`,
  '',
  'For $5 or $6.',
].join('\n');

describe('markdown math and task lists in Chromium', () => {
  test(
    'KaTeX is fetched from this server only once an answer holds math; math is MathML; no policy violation',
    async () => {
      const katexChunk = katexChunkName();
      replay.enqueue({ body: streamedText(PLAIN_ANSWER, 6) }, { body: streamedText(MATH_ANSWER, 5) });
      const page = await browser.newPage();
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      const violations = await watchViolations(page);
      await openNewChat(page, 'Math chat');
      const katexRequests = () =>
        requests.filter(
          (url) => /\/(?:katex\.css|KaTeX_[^/]*\.woff2)$/.test(url) || url.endsWith(`/${katexChunk}`),
        );

      await send(page, 'What does it cost?');
      const plain = page.locator('.message-assistant .markdown-body').first();
      await plain.getByText('in all.').waitFor();
      expect((await plain.textContent())?.trim()).toBe(PLAIN_ANSWER.replace(/\*\*/g, ''));
      expect(await plain.locator('.math').count()).toBe(0);
      expect(katexRequests()).toEqual([]);

      await send(page, 'And the formulas?');
      const answer = page.locator('.message-assistant .markdown-body').nth(1);
      await answer.getByText('For $5 or $6.').waitFor();
      // Two inline, one display, four refused commands, two styled, two long: eleven typeset; one invalid.
      expect(
        await waitUntil(async () => (await answer.locator('.math.math-typeset').count()) === 11, 8_000),
      ).toBe(true); // eleven formulas typeset
      const error = answer.locator('.math.math-error');
      expect(await error.textContent()).toBe('\\frac{a}{');
      expect(await error.getAttribute('title')).toBe(
        "KaTeX parse error: Unexpected end of input in a macro argument, expected '}' at end of input: \\frac{a}{",
      );
      expect(await error.evaluate((element) => getComputedStyle(element).color)).not.toBe(
        await answer.evaluate((element) => getComputedStyle(element).color),
      );

      const facts = await answer.evaluate((root) => {
        const maths = [...root.querySelectorAll('math')];
        const inMath = maths.flatMap((math) => [math, ...math.querySelectorAll('*')]);
        return {
          namespaces: [...new Set(maths.map((math) => math.namespaceURI))],
          displays: maths.map((math) => math.getAttribute('display')),
          tags: [...new Set(inMath.map((element) => element.localName))].sort(),
          styled: [...root.querySelectorAll('[style]')].map((element) => element.outerHTML),
          links: root.querySelectorAll('a, [href], [src]').length,
          htmlLayout: root.querySelectorAll('.katex-html, .katex-mathml').length,
          katexFont: getComputedStyle(root.querySelector('.katex')!).fontFamily,
          euler: root.querySelector('.math-inline annotation')?.textContent,
          display: root.querySelector('div.math-display annotation')?.textContent,
          refused: [...root.querySelectorAll('mstyle[mathcolor] > mtext')].map((text) => text.textContent),
        };
      });
      expect(facts.namespaces).toEqual(['http://www.w3.org/1998/Math/MathML']);
      expect(facts.displays).toEqual([
        null,
        null,
        'block',
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        'block',
      ]);
      expect(facts.tags.filter((tag) => !MATHML_TAGS.includes(tag))).toEqual([]);
      expect(facts.tags).toContain('mfrac');
      expect(facts.styled).toEqual([]);
      expect(facts.links).toBe(0);
      expect(facts.htmlLayout).toBe(0);
      expect(facts.katexFont).toContain('KaTeX_Main');
      expect(facts.euler).toBe('e^{i\\pi} + 1 = 0');
      expect(facts.display).toBe('\\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}');
      expect(facts.refused).toEqual(['\\href', '\\url', '\\htmlClass', '\\htmlStyle']);
      expect(await answer.locator('.copy-code').count()).toBe(0);

      // The chunk, the stylesheet and a font came from this server, once each, and nothing from elsewhere.
      expect(
        await waitUntil(
          () => katexRequests().some((url) => url.endsWith('/KaTeX_Main-Regular.woff2')),
          8_000,
        ),
      ).toBe(true); // the KaTeX_Main font fetched
      expect(katexRequests().every((url) => url.startsWith(`${server.url}/`))).toBe(true);
      expect(katexRequests().filter((url) => url.endsWith('/katex.css'))).toEqual([
        `${server.url}/katex.css`,
      ]);
      expect(katexRequests().filter((url) => url.endsWith(`/${katexChunk}`)).length).toBe(1);
      expect(browser.offOriginRequests).toEqual([]);
      expect(await violations()).toEqual([]);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
      await page.screenshot({
        path: path.join(SCREENSHOT_DIRECTORY, 'chat-math-desktop.png'),
        fullPage: true,
      });
      // From history after a reload: the same MathML, the same error, still no violation.
      await page.reload();
      const stored = page.locator('.message-assistant .markdown-body').nth(1);
      expect(
        await waitUntil(async () => (await stored.locator('.math.math-typeset').count()) === 11, 8_000),
      ).toBe(true); // eleven formulas typeset after the reload
      expect(await stored.locator('.math.math-error').textContent()).toBe('\\frac{a}{');
      expect(await stored.locator('[style]').count()).toBe(0);
      expect(await violations()).toEqual([]);

      // On a phone, the long formulas scroll inside the answer; the page itself never gets wider.
      const phone = await browser.newPage(PHONE_VIEWPORT);
      const phoneViolations = await watchViolations(phone);
      await phone.goto(page.url());
      const small = phone.locator('.message-assistant .markdown-body').nth(1);
      expect(
        await waitUntil(async () => (await small.locator('.math.math-typeset').count()) === 11, 8_000),
      ).toBe(true); // eleven formulas typeset on the phone
      expect(
        await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      const overflowing = await small.evaluate((root) => {
        const right = root.getBoundingClientRect().right;
        return [...root.querySelectorAll('.math-typeset')].filter(
          (math) => math.getBoundingClientRect().right > right + 1,
        ).length;
      });
      expect(overflowing).toBe(0);
      await small.locator('div.math-display').last().scrollIntoViewIfNeeded();
      await phone.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-math-phone.png') });
      expect(await phoneViolations()).toEqual([]);
      await phone.close();
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'task items are disabled checkboxes named by their text; each Copy button is named after its block',
    async () => {
      const answer = [
        'Steps:',
        '',
        '- [x] write the tests',
        '- [ ] ship **it**',
        '',
        '3. [x] third, numbered',
        '',
        '```ts',
        'const first = 1;',
        '```',
        '',
        '```typescript',
        'const second = 2;',
        '```',
        '',
        '```klingon',
        'Qapla',
        '```',
        '',
        '```',
        'plain',
        '```',
      ].join('\n');
      replay.enqueue({ body: streamedText(answer, 9) });
      await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      const page = await browser.newPage();
      await openNewChat(page, 'Tasks chat');
      await send(page, 'List the steps');
      const body = page.locator('.message-assistant .markdown-body');
      await body.getByText('plain', { exact: true }).waitFor();

      const done = body.getByRole('checkbox', { name: 'write the tests', exact: true });
      const open = body.getByRole('checkbox', { name: 'ship it', exact: true });
      expect([await done.isChecked(), await done.isDisabled()]).toEqual([true, true]);
      expect([await open.isChecked(), await open.isDisabled()]).toEqual([false, true]);
      await open.click({ force: true });
      expect(await open.isChecked()).toBe(false);
      // An ordered task list keeps its number (DOMPurify once dropped `start` and `type` as non-URLs).
      const numbered = body.getByRole('checkbox', { name: 'third, numbered', exact: true });
      expect(await numbered.isChecked()).toBe(true);
      expect(await body.locator('ol').getAttribute('start')).toBe('3');
      expect(
        await body
          .locator('input')
          .evaluateAll((inputs) => inputs.map((input) => input.getAttribute('type'))),
      ).toEqual(['checkbox', 'checkbox', 'checkbox']);

      const names = await body
        .getByRole('button')
        .evaluateAll((buttons) => buttons.map((button) => button.textContent));
      expect(names).toEqual(['Copy TypeScript code', 'Copy TypeScript code 2', 'Copy code', 'Copy code 2']);
      for (const name of names)
        expect(await body.getByRole('button', { name: name!, exact: true }).count()).toBe(1);
      expect(await body.locator('.copy-code .copy-code-action').allTextContents()).toEqual([
        'Copy',
        'Copy',
        'Copy',
        'Copy',
      ]);
      await body.getByRole('button', { name: 'Copy TypeScript code 2', exact: true }).click();
      await body.getByRole('button', { name: 'Copied TypeScript code 2', exact: true }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('const second = 2;\n');
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'chat-task-list-desktop.png') });
      expect(browser.offOriginRequests).toEqual([]);
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'when KaTeX cannot be fetched the TeX stays readable, and a later formula fetches it and typesets both',
    async () => {
      const katexChunk = katexChunkName();
      replay.enqueue(
        { body: streamedText('Offline: $a^2 + b^2$ here.', 4) },
        { body: streamedText('Back: $c^2$.', 4) },
      );
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      let refused = 0;
      await page.route(`**/${katexChunk}`, (route) => {
        refused += 1;
        return route.abort();
      });
      await openNewChat(page, 'Offline math chat');
      await send(page, 'Formula?');
      const first = page.locator('.message-assistant .markdown-body').first();
      await first.getByText('here.').waitFor();
      expect(await waitUntil(() => refused > 0, 8_000)).toBe(true); // the chunk was asked for
      expect(await first.locator('.math').textContent()).toBe('a^2 + b^2');
      expect(await first.locator('.math-typeset, .math-error').count()).toBe(0);

      await page.unroute(`**/${katexChunk}`);
      await send(page, 'Another?');
      const second = page.locator('.message-assistant .markdown-body').nth(1);
      await second.getByText('Back:').waitFor();
      expect(
        await waitUntil(async () => (await page.locator('.math.math-typeset').count()) === 2, 8_000),
      ).toBe(true); // both answers typeset
      expect(await first.locator('annotation').textContent()).toBe('a^2 + b^2');
      expect(errors).toEqual([]);
      expect(replay.failures).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test('KaTeX’s stylesheet and fonts are served compressed where it helps, each with its ETag', async () => {
    const css = await fetch(`${server.url}/katex.css`, { headers: { 'accept-encoding': 'br' } });
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('content-encoding')).toBe('br');
    expect(css.headers.get('vary')).toBe('Accept-Encoding');
    const cssTag = css.headers.get('etag');
    expect(cssTag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(await css.text()).toContain('src:url(KaTeX_Main-Regular.woff2) format("woff2")');
    const revalidated = await fetch(`${server.url}/katex.css`, {
      headers: { 'accept-encoding': 'br', 'if-none-match': cssTag! },
    });
    expect(revalidated.status).toBe(304);

    const font = await fetch(`${server.url}/KaTeX_Main-Regular.woff2`, {
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(font.status).toBe(200);
    expect(font.headers.get('content-type')).toBe('font/woff2');
    // WOFF2 is brotli-compressed inside: the build makes no copy of a font, it is sent as it is.
    expect(font.headers.get('content-encoding')).toBeNull();
    const bytes = new Uint8Array(await font.arrayBuffer());
    expect(new TextDecoder().decode(bytes.slice(0, 4))).toBe('wOF2');
    expect(font.headers.get('etag')).toBe(`"${new Bun.CryptoHasher('sha256').update(bytes).digest('hex')}"`);
  });
});
