/**
 * Browser-test harness: a real server on 127.0.0.1 (port 0, temp data directory, the web app built
 * into a temp directory) and Debian's Chromium driven by playwright-core with a fresh profile.
 * Every request to another origin is aborted and recorded, so a test can assert the app never
 * reaches past its server (no CDN fonts or scripts).
 */
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { type RunningServer, startServer } from '../../src/server/start-server.ts';
import type { ToolRegistry } from '../../src/tools/registry.ts';
import { buildWebApp } from '../../src/web/web-build.ts';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const DESKTOP_VIEWPORT = { width: 1280, height: 900 };
export const PHONE_VIEWPORT = { width: 390, height: 844 };
/** A shorter desktop window, 1280×860: the chat page must fit it with the composer on screen. */
export const SHORT_DESKTOP_VIEWPORT = { width: 1280, height: 860 };
/** Screenshots land here (git-ignored; CI keeps them as artifacts). */
export const SCREENSHOT_DIRECTORY = path.resolve(import.meta.dir, '..', '..', 'test-results');

export interface WebTestServer {
  url: string;
  /** Temp directory holding the data, the build and any working directories a test makes. */
  root: string;
  token: string;
  server: RunningServer;
  stop(): Promise<void>;
}

export interface WebTestServerOptions {
  /** Provider variables (e.g. `OPENAI_COMPATIBLE_BASE_URL` of a replay server); none by default. */
  environment?: Record<string, string>;
  /** Tools to serve (default: every builtin). */
  registry?: ToolRegistry;
}

/**
 * Builds the app into a temp dir and starts the real server over a temp SQLite database. The server's
 * own directories (data, web build, workspaces) live in a second temp dir; the temp `root` is granted
 * to the tester, so chats can bind directories made inside it.
 */
export async function startWebTestServer(options: WebTestServerOptions = {}): Promise<WebTestServer> {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), 'mango-web-e2e-')));
  const serverRoot = await realpath(await mkdtemp(path.join(tmpdir(), 'mango-web-e2e-server-')));
  const webDirectory = path.join(serverRoot, 'web');
  // The shell sandbox's uid must be able to reach the workspaces (mkdtemp makes the root 0700).
  await chmod(root, 0o755);
  // The workspaces directory lies inside the server's temp dir, and bubblewrap resolves each mount's
  // source as the user's uid: that uid must pass through (not list) it, as through a deployment's /srv.
  await chmod(serverRoot, 0o711);
  await buildWebApp({ outputDirectory: webDirectory });
  const config = {
    ...loadConfig(
      {
        PORT: '0',
        MANGO_DATA_DIR: path.join(serverRoot, 'data'),
        MANGO_WORKSPACES_DIR: path.join(serverRoot, 'workspaces'),
      },
      serverRoot,
    ),
    webDirectory,
  };
  const environment = { ...options.environment };
  const server = await startServer(config, { print: () => {}, env: environment, registry: options.registry });
  const { token, user } = await server.deps.users.create('web-tester');
  await server.deps.workspaces.grant(user.id, root, false);
  await shareWithTester({ url: server.url, token }, root);
  return {
    url: server.url,
    token,
    server,
    root,
    stop: async () => {
      await server.stop();
      await rm(root, { recursive: true, force: true });
      await rm(serverRoot, { recursive: true, force: true });
    },
  };
}

export interface TestBrowser {
  context: BrowserContext;
  /** URLs of every request to another origin (each was aborted). */
  offOriginRequests: string[];
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

export async function launchTestBrowser(serverUrl: string): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: run .ci/setup (apt-get install chromium).`);
  }
  const profile = await mkdtemp(path.join(tmpdir(), 'mango-chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: DESKTOP_VIEWPORT,
  });
  const origin = new URL(serverUrl).origin;
  const offOriginRequests: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url.startsWith('data:') || url.startsWith('blob:'))
      return route.continue();
    offOriginRequests.push(url);
    return route.abort();
  });
  await mkdir(SCREENSHOT_DIRECTORY, { recursive: true });
  return {
    context,
    offOriginRequests,
    newPage: async (viewport = DESKTOP_VIEWPORT) => {
      const page = await context.newPage();
      // Shorter than the test timeout, so a failing wait reports what it waited for.
      page.setDefaultTimeout(8_000);
      await page.setViewportSize(viewport);
      return page;
    },
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Signs in through the form (the token goes to localStorage) and waits for the Tools page. */
export async function signIn(page: Page, serverUrl: string, token: string): Promise<void> {
  await page.goto(`${serverUrl}/tools`);
  // The profile is shared by the file's tests: start each sign-in from a signed-out page.
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Tools', level: 1 }).waitFor();
}

/**
 * Unfolds a new chat's "Chat options" (provider, model, title, system prompt, workspace), which start
 * folded under the composer's first message.
 */
export async function openChatOptions(page: Page): Promise<void> {
  const options = page.locator('details.new-chat-options');
  await options.waitFor();
  if (!(await options.evaluate((details) => (details as HTMLDetailsElement).open)))
    await options.locator('summary').click();
  await page.getByLabel('Provider').waitFor();
}

/** An API request as the test server's first user, JSON in and out. */
export function callApi(
  server: Pick<WebTestServer, 'url' | 'token'>,
  method: string,
  pathname: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${server.url}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/**
 * The tester's file tools work as their own uid in their sandbox, so the grant the tests make folders
 * in (as root) is shared with that uid's group the way `mango workspace grant --fix-owner` shares a
 * grant with its group: the directory gets the group and setgid (what is made below inherits the group)
 * and this test process makes files group-writable (umask 0002, the sandbox's own).
 */
async function shareWithTester(server: Pick<WebTestServer, 'url' | 'token'>, root: string): Promise<void> {
  const response = await callApi(server, 'GET', '/api/workspaces');
  const { workspaces } = (await response.json()) as { workspaces: { kind: string; path: string }[] };
  const personal = workspaces.find((workspace) => workspace.kind === 'personal');
  if (personal === undefined) throw new Error('the tester has no personal workspace to take the group from');
  await chown(root, -1, (await stat(personal.path)).gid);
  await chmod(root, 0o2775);
  process.umask(0o002);
}

/**
 * Resolves once the last answer holds `lastText` and Send is enabled again, looked at every 250 ms: a
 * locator's text search over a long answer, polled every frame, would be a long task of the
 * measurement's own (the streaming measurements use this).
 */
export async function waitForWholeAnswer(page: Page, lastText: string, timeout = 120_000): Promise<void> {
  await page.waitForFunction(
    (text) => {
      const send = document.querySelector('.composer button[type="submit"]') as HTMLButtonElement | null;
      const answers = document.querySelectorAll('.message-assistant');
      const last = answers[answers.length - 1];
      return send?.disabled === false && (last?.textContent ?? '').includes(text);
    },
    lastText,
    { polling: 250, timeout },
  );
}

/** What the main thread did while a recording ran (`recordMainThread`). */
export interface MainThreadRecord {
  /** The longest task the browser reported as long (over 50 ms); 0 when none was. */
  longestTask: number;
  /** How many tasks were long. */
  longTasks: number;
  /** The longest time between two animation frames, the wait for the first one left out. */
  longestFrameGap: number;
}

/**
 * Starts recording the page's long tasks (`PerformanceObserver` of `longtask`) and the gaps between its
 * animation frames; the function returned stops the recording and reads it. The streaming measurements
 * (the browser test and the bench) use this.
 */
export async function recordMainThread(page: Page): Promise<() => Promise<MainThreadRecord>> {
  await page.evaluate(() => {
    const record = window as unknown as { __longTasks: number[]; __gaps: number[]; __stop: boolean };
    record.__longTasks = [];
    record.__gaps = [];
    record.__stop = false;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) record.__longTasks.push(entry.duration);
    }).observe({ type: 'longtask', buffered: false });
    let last = performance.now();
    const frame = (time: number) => {
      record.__gaps.push(time - last);
      last = time;
      if (!record.__stop) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  return () =>
    page.evaluate(() => {
      const record = window as unknown as { __longTasks: number[]; __gaps: number[]; __stop: boolean };
      record.__stop = true;
      return {
        longestTask: Math.max(0, ...record.__longTasks),
        longTasks: record.__longTasks.length,
        longestFrameGap: Math.max(0, ...record.__gaps.slice(1)),
      };
    });
}
