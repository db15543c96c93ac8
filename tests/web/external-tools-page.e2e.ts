/**
 * The Tools page with external MCP servers, in real headless Chromium against the real server:
 * server-everything over Streamable HTTP (a real process on loopback, `MANGO_MCP_ALLOW_PRIVATE=1`) is
 * shown as its own group with its state and tools, switching one of its tools off persists across a
 * reload, a server that cannot be reached shows as failed with its error, and a user adds and removes
 * a server of their own from the page. A screenshot is kept.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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

describe('external MCP servers on the tools page', () => {
  test(
    'each server is a group with its state; a tool switched off stays off after a reload',
    async () => {
      const page = await browser.newPage();
      await signIn(page, server.url, server.token);
      await page.getByRole('heading', { name: 'External MCP servers', level: 2 }).waitFor();
      const group = page.locator('section[data-mcp-server="everything"]');
      await group.getByRole('heading', { name: 'everything (operator)', level: 3 }).waitFor();
      expect(await group.locator('.mcp-server-state').textContent()).toMatch(/^Connected · \d+ tools$/);
      const echo = group.locator('article[data-tool="mcp__everything__echo"]');
      await echo.waitFor();
      const toggle = page.getByRole('switch', { name: 'Enable Echo Tool (everything)' });
      expect(await toggle.isChecked()).toBe(true);
      await toggle.click();
      await echo.getByText('Echo Tool (everything) disabled.').waitFor();

      const failed = page.locator('section[data-mcp-server="gone"] .mcp-server-state');
      expect(await failed.textContent()).toStartWith('Failed: The MCP server "gone" could not be connected');
      await page.screenshot({
        path: path.join(SCREENSHOT_DIRECTORY, 'tools-external-servers.png'),
        fullPage: true,
      });

      await page.reload();
      await page.getByRole('switch', { name: 'Enable Echo Tool (everything)' }).waitFor();
      expect(await page.getByRole('switch', { name: 'Enable Echo Tool (everything)' }).isChecked()).toBe(
        false,
      );
      const stored = await fetch(`${server.url}/api/settings/tools`, {
        headers: { authorization: `Bearer ${server.token}` },
      }).then((response) => response.json() as Promise<{ tools: { name: string; enabled: boolean }[] }>);
      expect(stored.tools.find((tool) => tool.name === 'mcp__everything__echo')?.enabled).toBe(false);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'a user adds their own server with a header, sees its tools, and removes it',
    async () => {
      const page = await browser.newPage();
      await signIn(page, server.url, server.token);
      await page.getByRole('heading', { name: 'Add your own MCP server' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('mine');
      await page.getByLabel('Streamable HTTP URL').fill(everythingUrl);
      await page
        .getByLabel('Headers (one "Name: value" a line, optional)')
        .fill('X-Test: not-a-secret-either');
      await page.getByRole('button', { name: 'Add server' }).click();
      const group = page.locator('section[data-mcp-server="mine"]');
      await group.getByRole('heading', { name: 'mine (yours)', level: 3 }).waitFor();
      await group.locator('article[data-tool="mcp__mine__echo"]').waitFor();
      expect(await page.content()).not.toContain('not-a-secret-either');

      // A refused server shows the server's message by the form.
      await page.getByLabel('Name', { exact: true }).fill('everything');
      await page.getByLabel('Streamable HTTP URL').fill(everythingUrl);
      await page.getByRole('button', { name: 'Add server' }).click();
      await page
        .locator('form.mcp-add-server')
        .getByText('Not added: "everything" is the name of an operator\'s MCP server; choose another.')
        .waitFor();

      await group.getByRole('button', { name: 'Remove mine' }).click();
      await page.locator('section[data-mcp-server="mine"]').waitFor({ state: 'detached' });
      await page.close();
    },
    TIMEOUT_MS,
  );
});
