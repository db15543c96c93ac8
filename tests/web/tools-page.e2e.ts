/**
 * The Tools page in real headless Chromium against the real server: sign-in, a tool toggled on
 * persists across a reload (after the shell warning), an out-of-range value shows the server's 422
 * message next to its field, and reset to defaults. Screenshots at desktop and phone width.
 * Run by `npm run test:e2e` in its own process (not `npm test`), so Chromium's load never skews the
 * timing- and memory-sensitive unit tests.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import path from 'node:path';
import type { Page } from 'playwright-core';
import {
  launchTestBrowser,
  PHONE_VIEWPORT,
  SCREENSHOT_DIRECTORY,
  signIn,
  startWebTestServer,
  type TestBrowser,
  type WebTestServer,
} from '../helpers/web-browser.ts';

const TIMEOUT_MS = 30_000;
let server: WebTestServer;
let browser: TestBrowser;

beforeAll(async () => {
  server = await startWebTestServer();
  browser = await launchTestBrowser(server.url);
}, TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

function bashCard(page: Page) {
  return page.locator('article[data-tool="bash"]');
}

describe('tools page in Chromium', () => {
  test(
    'a wrong token is refused; the right one signs in, survives a reload, and sign-out forgets it',
    async () => {
      const page = await browser.newPage();
      await page.goto(`${server.url}/`);
      await page.getByLabel('API token').fill('not-a-real-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe('That token was not accepted.');

      await page.getByLabel('API token').fill(server.token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      // Signing in at / opens Chats, where a first message can be typed at once.
      await page.getByRole('heading', { name: 'New chat', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/chats');

      await page.getByRole('link', { name: 'Tools' }).click();
      await page.getByRole('heading', { name: 'Tools', level: 1 }).waitFor();
      await page.reload();
      await page.getByRole('heading', { name: 'System', level: 2 }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API token').waitFor();
      expect(await page.evaluate(() => localStorage.getItem('mango.apiToken'))).toBeNull();
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'enabling bash asks for confirmation first, and the saved state survives a reload',
    async () => {
      const page = await browser.newPage();
      await signIn(page, server.url, server.token);
      const toggle = page.getByRole('switch', { name: 'Enable Bash' });
      expect(await toggle.isChecked()).toBe(false);

      // By keyboard: Space on the switch opens the warning, focus moves into it, Escape backs out.
      await toggle.focus();
      await page.keyboard.press('Space');
      const dialog = page.getByRole('dialog', { name: 'Enable Bash?' });
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain('can run any command');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await toggle.isChecked()).toBe(false);
      expect(await toggle.evaluate((element) => element === document.activeElement)).toBe(true);

      await toggle.click();
      await dialog.getByRole('button', { name: 'Enable bash' }).click();
      await bashCard(page).getByText('Bash enabled.').waitFor();

      await page.reload();
      await page.getByRole('switch', { name: 'Enable Bash' }).waitFor();
      expect(await page.getByRole('switch', { name: 'Enable Bash' }).isChecked()).toBe(true);
      const stored = await fetch(`${server.url}/api/settings/tools`, {
        headers: { authorization: `Bearer ${server.token}` },
      }).then((response) => response.json() as Promise<{ tools: { name: string; enabled: boolean }[] }>);
      expect(stored.tools.find((tool) => tool.name === 'bash')?.enabled).toBe(true);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    "an out-of-range timeout shows the server's 422 message next to the field; reset restores the default",
    async () => {
      const page = await browser.newPage();
      await signIn(page, server.url, server.token);
      const card = bashCard(page);
      await card.getByText(/^Settings \(/).click();
      const timeout = card.getByLabel('Timeout (seconds)', { exact: true });
      await timeout.fill('9999');
      await card.getByRole('button', { name: 'Save settings' }).click();
      const error = card.locator('.field-error:not([hidden])');
      await error.waitFor();
      expect(await error.textContent()).toBe(
        'Tool "bash" setting "Timeout (seconds)" must be at most 600, got 9999.',
      );
      // The message names the setting by the label its field shows, never by its key.
      const label = await card.locator(`label[for="${await timeout.getAttribute('id')}"]`).textContent();
      expect(label).toBe('Timeout (seconds)');
      expect(await error.textContent()).toContain(`"${label}"`);
      expect(await error.textContent()).not.toContain('timeoutSeconds');
      expect(await timeout.getAttribute('aria-invalid')).toBe('true');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('timeoutSeconds');

      await timeout.fill('45');
      await card.getByRole('button', { name: 'Save settings' }).click();
      await card.getByText('Settings saved.').waitFor();
      expect(await error.count()).toBe(0);
      await page.reload();
      await bashCard(page)
        .getByText(/^Settings \(/)
        .click();
      expect(await bashCard(page).getByLabel('Timeout (seconds)', { exact: true }).inputValue()).toBe('45');

      await bashCard(page).getByRole('button', { name: 'Reset to defaults' }).click();
      await bashCard(page).getByText('Settings reset to defaults.').waitFor();
      expect(await bashCard(page).getByLabel('Timeout (seconds)', { exact: true }).inputValue()).toBe('30');
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'saving, resetting and switching keep the scroll position and leave focus on the control used',
    async () => {
      const page = await browser.newPage();
      await signIn(page, server.url, server.token);
      const main = page.locator('#main');
      const card = bashCard(page);
      await card.getByText(/^Settings \(/).click();
      const save = card.getByRole('button', { name: 'Save settings' });
      await save.focus();
      const at = await main.evaluate((element) => element.scrollTop);
      expect(at).toBeGreaterThan(200);
      await page.keyboard.press('Enter');
      await card.getByText('Settings saved.').waitFor();
      expect(await save.evaluate((element) => element === document.activeElement)).toBe(true);
      expect(await main.evaluate((element) => element.scrollTop)).toBe(at);

      const reset = card.getByRole('button', { name: 'Reset to defaults' });
      await reset.focus();
      await page.keyboard.press('Enter');
      await card.getByText('Settings reset to defaults.').waitFor();
      expect(await reset.evaluate((element) => element === document.activeElement)).toBe(true);
      expect(await main.evaluate((element) => element.scrollTop)).toBe(at);

      // The last tool on the page that can be switched off and on again without a warning.
      const name = await page
        .locator('article.tool-card')
        .filter({ hasNot: page.locator('.tool-warning, .tool-unavailable') })
        .filter({ has: page.locator('input[role="switch"]:not([disabled])') })
        .last()
        .getAttribute('data-tool');
      const last = page.locator(`article[data-tool="${name}"]`);
      const toggle = last.getByRole('switch');
      await toggle.focus();
      const before = await main.evaluate((element) => element.scrollTop);
      expect(before).toBeGreaterThan(at);
      const wasOn = await toggle.isChecked();
      await page.keyboard.press('Space');
      await last.getByText(wasOn ? /disabled\.$/ : /enabled\.$/).waitFor();
      expect(await toggle.evaluate((element) => element === document.activeElement)).toBe(true);
      expect(await main.evaluate((element) => element.scrollTop)).toBe(before);
      await page.keyboard.press('Space');
      await last.getByText(wasOn ? /enabled\.$/ : /disabled\.$/).waitFor();
      const stored = await fetch(`${server.url}/api/settings/tools`, {
        headers: { authorization: `Bearer ${server.token}` },
      }).then((response) => response.json() as Promise<{ tools: { name: string; enabled: boolean }[] }>);
      expect(stored.tools.find((tool) => tool.name === name)?.enabled).toBe(wasOn);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'an unavailable tool switched off cannot come back on: focus moves to its title, not to the top of the page',
    async () => {
      const page = await browser.newPage();
      await signIn(page, server.url, server.token);
      const card = page.locator('article[data-tool="generate_image"]');
      await card.getByText('Unavailable here:', { exact: false }).waitFor();
      const toggle = card.getByRole('switch', { name: 'Enable Image generation' });
      expect(await toggle.isChecked()).toBe(true);
      await toggle.focus();
      await page.keyboard.press('Space');
      await card.getByText('Image generation disabled.').waitFor();
      expect(await toggle.isDisabled()).toBe(true);
      expect(
        await page.evaluate(() => [document.activeElement?.tagName, document.activeElement?.textContent]),
      ).toEqual(['H3', 'Image generation']);
      // Nor through the API: the server refuses to enable it, as the page's disabled switch says.
      const response = await fetch(`${server.url}/api/settings/tools/generate_image`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ enabled: true }),
      });
      expect(response.status).toBe(422);
      expect(((await response.json()) as { code: string }).code).toBe('tool_unavailable');
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'path list editor: add an entry, switch it off, save, reload, remove',
    async () => {
      const page = await browser.newPage();
      await signIn(page, server.url, server.token);
      const card = bashCard(page);
      await card.getByText(/^Settings \(/).click();
      const denied = card.getByRole('group', { name: 'Denied paths' });
      await denied.getByRole('button', { name: 'Add path' }).click();
      const entry = denied.getByLabel('Denied paths entry 1', { exact: true });
      expect(await entry.evaluate((element) => element === document.activeElement)).toBe(true);
      await entry.fill('/etc');
      await denied.getByLabel('Entry 1 enabled').uncheck();
      await card.getByRole('button', { name: 'Save settings' }).click();
      await card.getByText('Settings saved.').waitFor();

      await page.reload();
      const reloaded = bashCard(page);
      await reloaded.getByText(/^Settings \(/).click();
      const deniedAgain = reloaded.getByRole('group', { name: 'Denied paths' });
      expect(await deniedAgain.getByLabel('Denied paths entry 1', { exact: true }).inputValue()).toBe('/etc');
      expect(await deniedAgain.getByLabel('Entry 1 enabled').isChecked()).toBe(false);

      await deniedAgain.getByRole('button', { name: 'Remove Denied paths entry 1' }).click();
      await reloaded.getByRole('button', { name: 'Save settings' }).click();
      await reloaded.getByText('Settings saved.').waitFor();
      const stored = await fetch(`${server.url}/api/settings/tools`, {
        headers: { authorization: `Bearer ${server.token}` },
      }).then(
        (response) =>
          response.json() as Promise<{ tools: { name: string; parameters: Record<string, unknown> }[] }>,
      );
      expect(stored.tools.find((tool) => tool.name === 'bash')?.parameters.deniedPaths).toEqual([]);
      await page.close();
    },
    TIMEOUT_MS,
  );

  test(
    'screenshots at desktop and phone width; no request leaves the server',
    async () => {
      for (const [label, viewport] of [
        ['desktop', undefined],
        ['phone', PHONE_VIEWPORT],
      ] as const) {
        const page = await browser.newPage(viewport);
        await signIn(page, server.url, server.token);
        await bashCard(page)
          .getByText(/^Settings \(/)
          .click();
        await page.screenshot({
          path: path.join(SCREENSHOT_DIRECTORY, `tools-page-${label}.png`),
          fullPage: true,
        });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow).toBeLessThanOrEqual(0);
        // Every control has an accessible name (a <label>, aria-label, or its text).
        const unnamed = await page.evaluate(() =>
          [...document.querySelectorAll('input, select, textarea, button')]
            .filter((control) => {
              const labelled = (control as HTMLInputElement).labels?.length ?? 0;
              const text = control.tagName === 'BUTTON' ? (control.textContent ?? '').trim() : '';
              return labelled === 0 && !control.getAttribute('aria-label') && text === '';
            })
            .map((control) => control.outerHTML),
        );
        expect(unnamed).toEqual([]);
        await page.close();
      }
      expect(browser.offOriginRequests).toEqual([]);
    },
    TIMEOUT_MS,
  );
});
