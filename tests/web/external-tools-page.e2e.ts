/**
 * The Tools page with external MCP servers, in real headless Chromium against the real server:
 * server-everything over Streamable HTTP (a real process on loopback, `MANGO_MCP_ALLOW_PRIVATE=1`) is
 * a folded group of its own, its state in its header and its tools as compact rows once unfolded; a
 * tool of it switched off persists across a reload, and so does the unfolded group; a server that cannot
 * be reached shows as failed with its error; a user adds and removes a server of their own from the page,
 * which neither jumps to the top nor loses focus, the new server's group coming into view. A screenshot
 * is kept.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import {
  launchTestBrowser,
  SCREENSHOT_DIRECTORY,
  signIn,
  startWebTestServer,
  type TestBrowser,
  type WebTestServer,
} from '../helpers/web-browser.ts';
import {
  type EverythingOverHttp,
  freeLoopbackPort,
  startEverythingOverHttp,
} from '../mcp-client/external-servers.ts';

const TIMEOUT_MS = 60_000;
let server: WebTestServer;
let browser: TestBrowser;
let everything: EverythingOverHttp | undefined;
let directory: string;
let everythingUrl: string;

beforeAll(async () => {
  const nobody = await freeLoopbackPort();
  everything = await startEverythingOverHttp();
  everythingUrl = everything.url;
  directory = mkdtempSync(path.join(tmpdir(), 'mango-web-mcp-'));
  const file = path.join(directory, 'servers.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        everything: { type: 'http', url: everythingUrl },
        gone: { type: 'http', url: `http://127.0.0.1:${nobody}/mcp` },
      },
    }),
  );
  server = await startWebTestServer({
    environment: {
      MANGO_MCP_SERVERS: file,
      MANGO_MCP_ALLOW_PRIVATE: '1',
      MANGO_SECRET_KEY: 'web-test-secret-key-0123456789abcdef',
    },
  });
  browser = await launchTestBrowser(server.url);
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await everything?.stop();
  rmSync(directory, { recursive: true, force: true });
});

function serverGroup(page: Page, name: string) {
  return page.locator(`section[data-mcp-server="${name}"]`);
}

/** The fold button in a server group's heading. */
function foldButton(page: Page, name: string) {
  return serverGroup(page, name).locator('.group-header .fold-button');
}

async function storedTools(): Promise<{ name: string; enabled: boolean }[]> {
  const response = await fetch(`${server.url}/api/settings/tools`, {
    headers: { authorization: `Bearer ${server.token}` },
  });
  return ((await response.json()) as { tools: { name: string; enabled: boolean }[] }).tools;
}

describe('external MCP servers on the tools page', () => {
  test(
    'each server is a folded group with its state; unfolded, its tools are compact rows; a tool switched off and the unfolded group survive a reload',
    async () => {
      const page = await browser.newPage();
      await signIn(page, server.url, server.token);
      await page.getByRole('heading', { name: 'External MCP servers', level: 2 }).waitFor();
      const group = serverGroup(page, 'everything');
      await group.getByRole('heading', { name: 'everything (operator)', level: 3 }).waitFor();
      expect(await group.locator('.mcp-server-state').textContent()).toMatch(/^Connected · \d+ tools$/);
      const toolCount = Number(
        /(\d+) tools/.exec((await group.locator('.mcp-server-state').textContent())!)![1],
      );
      expect(toolCount).toBeGreaterThan(3);

      // Folded: one line for the whole server, none of its tools shown.
      expect(await foldButton(page, 'everything').getAttribute('aria-expanded')).toBe('false');
      const echo = group.locator('article[data-tool="mcp__everything__echo"]');
      expect(await echo.isVisible()).toBe(false);
      await foldButton(page, 'everything').click();
      await echo.waitFor();
      expect(await group.locator('article.tool-row:visible').count()).toBe(toolCount);
      await page.locator('section[data-category="external"]').evaluate((section) => section.scrollIntoView());
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'tools-external-servers.png') });

      // A compact row: title, name and switch; its description and settings unfold with its title.
      const description = echo.locator('.tool-description');
      expect(await description.isVisible()).toBe(false);
      const rowHeight = (await echo.boundingBox())!.height;
      expect(rowHeight).toBeLessThan(60);
      await echo.getByRole('button', { name: 'Echo Tool (everything)' }).click();
      await description.waitFor();
      await echo.getByRole('button', { name: 'Save settings' }).waitFor();

      const toggle = page.getByRole('switch', { name: 'Enable Echo Tool (everything)' });
      expect(await toggle.isChecked()).toBe(true);
      await toggle.click();
      await echo.getByText('Echo Tool (everything) disabled.').waitFor();
      expect(await toggle.evaluate((element) => element === document.activeElement)).toBe(true);

      const failed = serverGroup(page, 'gone').locator('.mcp-server-state');
      expect(await failed.textContent()).toStartWith('Failed: The MCP server "gone" could not be connected');

      await page.reload();
      await page.getByRole('switch', { name: 'Enable Echo Tool (everything)' }).waitFor();
      expect(await foldButton(page, 'everything').getAttribute('aria-expanded')).toBe('true');
      expect(await foldButton(page, 'gone').getAttribute('aria-expanded')).toBe('false');
      expect(await page.getByRole('switch', { name: 'Enable Echo Tool (everything)' }).isChecked()).toBe(
        false,
      );
      expect((await storedTools()).find((tool) => tool.name === 'mcp__everything__echo')?.enabled).toBe(
        false,
      );

      // Switched back on for the other tests, which count enabled tools.
      await page.getByRole('switch', { name: 'Enable Echo Tool (everything)' }).click();
      await serverGroup(page, 'everything').getByText('Echo Tool (everything) enabled.').waitFor();
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'a search opens the folded group it matches in, filters narrow by status and source, and the address keeps both across a reload',
    async () => {
      const page = await browser.newPage();
      await signIn(page, server.url, server.token);
      const search = page.getByLabel('Search tools');
      await serverGroup(page, 'everything').waitFor();
      const all = await storedTools();
      const count = page.locator('#tool-count');
      expect(await count.textContent()).toBe(`${all.length} tools`);
      const visibleTools = async () =>
        (
          await page
            .locator('article[data-tool]:visible')
            .evaluateAll((cards) => cards.map((card) => card.getAttribute('data-tool') ?? ''))
        ).sort();

      await search.fill('echo');
      // Every tool whose title, name or description says "echo", and nothing else.
      const descriptors = (await fetch(`${server.url}/api/settings/tools`, {
        headers: { authorization: `Bearer ${server.token}` },
      }).then((response) => response.json())) as {
        tools: { name: string; title: string; description: string }[];
      };
      const echoing = descriptors.tools
        .filter((tool) => `${tool.title} ${tool.name} ${tool.description}`.toLowerCase().includes('echo'))
        .map((tool) => tool.name)
        .sort();
      expect(echoing).toContain('mcp__everything__echo');
      expect(await visibleTools()).toEqual(echoing);
      expect(await count.textContent()).toBe(`${echoing.length} of ${all.length} tools`);
      expect(await foldButton(page, 'everything').getAttribute('aria-expanded')).toBe('true');
      expect(await serverGroup(page, 'gone').isVisible()).toBe(false);
      expect(new URL(page.url()).search).toBe('?q=echo');
      await page.screenshot({ path: path.join(SCREENSHOT_DIRECTORY, 'tools-search.png') });

      await page.reload();
      await serverGroup(page, 'everything').locator('article[data-tool="mcp__everything__echo"]').waitFor();
      expect(await page.getByLabel('Search tools').inputValue()).toBe('echo');
      expect(await visibleTools()).toEqual(echoing);

      // Escape clears the search: the group folds back, as the user left it.
      await page.getByLabel('Search tools').press('Escape');
      expect(await count.textContent()).toBe(`${all.length} tools`);
      expect(await foldButton(page, 'everything').getAttribute('aria-expanded')).toBe('false');
      expect(new URL(page.url()).search).toBe('');

      // A failed server is found by its name.
      await page.getByLabel('Search tools').fill('gone');
      await serverGroup(page, 'gone').waitFor();
      expect(await page.locator('section.mcp-server:visible').count()).toBe(1);

      // Nothing matches: say so, and offer the way back.
      await page.getByLabel('Search tools').fill('no-such-tool-anywhere');
      await page.getByText('No tool matches “no-such-tool-anywhere” with these filters.').waitFor();
      expect(await count.textContent()).toBe(`0 of ${all.length} tools`);
      expect(await visibleTools()).toEqual([]);
      await page.getByRole('button', { name: 'Show every tool' }).click();
      expect(await page.getByLabel('Search tools').inputValue()).toBe('');
      expect(await page.getByText('No tool matches').isVisible()).toBe(false);

      // Filters: the operator's servers' tools that are off (bash is the built-in one off by default).
      await page.getByLabel('Source', { exact: true }).selectOption({ label: "Operator's MCP servers" });
      const operatorTools = all
        .filter((tool) => tool.name.startsWith('mcp__everything__'))
        .map((tool) => tool.name)
        .sort();
      expect(await visibleTools()).toEqual(operatorTools);
      await page.getByLabel('Status', { exact: true }).selectOption('off');
      expect(await visibleTools()).toEqual(
        all
          .filter((tool) => tool.name.startsWith('mcp__everything__') && !tool.enabled)
          .map((tool) => tool.name)
          .sort(),
      );
      await page.getByLabel('Source', { exact: true }).selectOption({ label: 'Built-in' });
      const builtinOff = all
        .filter((tool) => !tool.name.startsWith('mcp__') && !tool.enabled)
        .map((tool) => tool.name)
        .sort();
      expect(builtinOff).toContain('bash');
      expect(await visibleTools()).toEqual(builtinOff);
      expect(new URL(page.url()).search).toBe('?source=builtin&status=off');
      await page.reload();
      await page.locator('article[data-tool="bash"]').waitFor();
      expect(await page.getByLabel('Status', { exact: true }).inputValue()).toBe('off');
      expect(await page.getByLabel('Source', { exact: true }).inputValue()).toBe('builtin');
      expect(await visibleTools()).toEqual(builtinOff);

      await page.getByLabel('Category', { exact: true }).selectOption({ label: 'External MCP servers' });
      await page.getByText('No tool matches these filters.').waitFor();

      // A value the page does not know is named, not quietly applied.
      await page.goto(`${server.url}/tools?status=maybe`);
      await page
        .getByText('The address asks for status "maybe", which is not one of on, off; showing every status.')
        .waitFor();
      expect(await page.getByLabel('Status', { exact: true }).inputValue()).toBe('all');
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'a category folded by the user stays folded after a reload, opens for a search that matches inside it, and folds back after',
    async () => {
      const page = await browser.newPage();
      await signIn(page, server.url, server.token);
      const system = page.locator('section[data-category="system"]');
      const systemButton = system.locator('.group-header .fold-button');
      await system.locator('article[data-tool="bash"]').waitFor();
      await systemButton.click();
      expect(await systemButton.getAttribute('aria-expanded')).toBe('false');
      expect(await system.locator('article[data-tool="bash"]').isVisible()).toBe(false);
      await page.reload();
      await page
        .locator('section[data-category="system"] .group-header .fold-button[aria-expanded="false"]')
        .waitFor();
      expect(await page.locator('article[data-tool="bash"]').isVisible()).toBe(false);

      await page.getByLabel('Search tools').fill('bash');
      await page.locator('article[data-tool="bash"]').waitFor();
      expect(await systemButton.getAttribute('aria-expanded')).toBe('true');
      // Folding it during the search holds for this search; the stored choice is unchanged.
      await systemButton.click();
      expect(await page.locator('article[data-tool="bash"]').isVisible()).toBe(false);
      await page.getByLabel('Search tools').fill('');
      expect(await systemButton.getAttribute('aria-expanded')).toBe('false');
      expect(await page.evaluate(() => localStorage.getItem('mango.toolsPage.folds'))).toBe(
        '{"category:system":false}',
      );
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'a user adds their own server with a header: it comes into view without a jump, focus stays; removing it keeps the place too',
    async () => {
      const page = await browser.newPage();
      await signIn(page, server.url, server.token);
      await page.getByRole('heading', { name: 'Add your own MCP server' }).waitFor();
      await serverGroup(page, 'everything').waitFor();
      // Unfolded, so the page is long and the form far down.
      await foldButton(page, 'everything').click();
      const main = page.locator('#main');
      await page.getByLabel('Name', { exact: true }).fill('mine');
      await page.getByLabel('Streamable HTTP URL').fill(everythingUrl);
      await page
        .getByLabel('Headers (one "Name: value" a line, optional)')
        .fill('X-Test: not-a-secret-either');
      const add = page.getByRole('button', { name: 'Add server' });
      await add.focus();
      const before = await main.evaluate((element) => element.scrollTop);
      expect(before).toBeGreaterThan(500);
      await page.keyboard.press('Enter');
      const group = serverGroup(page, 'mine');
      await group.getByRole('heading', { name: 'mine (yours)', level: 3 }).waitFor();
      await page.locator('form.mcp-add-server').getByText('Added mine (connected).').waitFor();
      expect(await add.evaluate((element) => element === document.activeElement)).toBe(true);
      expect(await main.evaluate((element) => element.scrollTop)).toBeGreaterThanOrEqual(before);
      // The new group is inside the visible part of the page.
      const box = (await group.boundingBox())!;
      const view = (await main.boundingBox())!;
      expect(box.y).toBeGreaterThanOrEqual(view.y);
      expect(box.y + 40).toBeLessThanOrEqual(view.y + view.height);
      expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('');
      expect(await page.content()).not.toContain('not-a-secret-either');

      await group.locator('.group-header .fold-button').click();
      await group.locator('article[data-tool="mcp__mine__echo"]').waitFor();

      // A refused server shows the server's message by the form.
      await page.getByLabel('Name', { exact: true }).fill('everything');
      await page.getByLabel('Streamable HTTP URL').fill(everythingUrl);
      await page.getByRole('button', { name: 'Add server' }).click();
      await page
        .locator('form.mcp-add-server')
        .getByText('Not added: "everything" is the name of an operator\'s MCP server; choose another.')
        .waitFor();

      const remove = group.getByRole('button', { name: 'Remove mine' });
      await remove.scrollIntoViewIfNeeded();
      const atRemove = await main.evaluate((element) => element.scrollTop);
      expect(atRemove).toBeGreaterThan(500);
      await remove.click();
      await page.locator('section[data-mcp-server="mine"]').waitFor({ state: 'detached' });
      // Focus moves to the neighbouring server's group, in view; the page did not go back to the top.
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('gone (operator)');
      const focused = (await foldButton(page, 'gone').boundingBox())!;
      const after = (await main.boundingBox())!;
      expect(focused.y).toBeGreaterThanOrEqual(after.y);
      expect(focused.y + focused.height).toBeLessThanOrEqual(after.y + after.height);
      expect(await main.evaluate((element) => element.scrollTop)).toBeGreaterThan(0);
      await page.close();
    },
    TIMEOUT_MS,
  );
});
