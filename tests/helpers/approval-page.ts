/**
 * The browser tests of approvals on the chat page share this setup: a scripted replay server as the
 * OpenAI-compatible provider, a real server on loopback with a project directory, bash, write_file and
 * edit_file set to ask before every call, and headless Chromium; plus the steps the tests repeat (open a
 * new chat, send, script a bash call, wait for a card to wait, read what the model received).
 */
import { afterAll, beforeAll, expect } from 'bun:test';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { type RecordedRequest, type ReplayServer, startReplayServer } from './replay-server.ts';
import { chatBody } from './scripted-provider-streams.ts';
import {
  callApi,
  launchTestBrowser,
  signIn,
  startWebTestServer,
  type TestBrowser,
  type WebTestServer,
} from './web-browser.ts';

export interface ApprovalPage {
  replay: ReplayServer;
  server: WebTestServer;
  browser: TestBrowser;
  /** The chats' working directory. */
  project: string;
  api(method: string, pathname: string, body?: unknown): Promise<Response>;
  saveTool(name: string, parameters: Record<string, unknown>): Promise<void>;
  toolParameters(name: string): Promise<Record<string, unknown>>;
  /** Creates a chat in `project` and opens it in `page`, signed in; returns its id. */
  openNewChat(page: Page, title: string): Promise<string>;
  /** A model that calls bash with `command`, then answers `answer`. */
  scriptBash(callId: string, command: string, answer: string): void;
  /** The text of the tool message the model received for `callId`, in the last request that has one. */
  toolMessageSent(callId: string): string | undefined;
  /** How many model requests the replay server received. */
  requestCount(): number;
  close(): Promise<void>;
}

export async function startApprovalPage(): Promise<ApprovalPage> {
  const replay = startReplayServer();
  const server = await startWebTestServer({
    environment: { OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1` },
  });
  const project = path.join(server.root, 'project');
  await mkdir(project);
  const api = (method: string, pathname: string, body?: unknown) => callApi(server, method, pathname, body);
  const saveTool = async (name: string, parameters: Record<string, unknown>) => {
    const response = await api('PUT', `/api/settings/tools/${name}`, { enabled: true, parameters });
    expect(response.status).toBe(200);
  };
  // Stated here rather than relied on as defaults: every call of these tools asks.
  await saveTool('bash', { approval: 'always' });
  await saveTool('write_file', { approval: 'always' });
  await saveTool('edit_file', { approval: 'always' });
  const browser = await launchTestBrowser(server.url);

  return {
    replay,
    server,
    browser,
    project,
    api,
    saveTool,
    async toolParameters(name) {
      const response = await api('GET', '/api/settings/tools');
      const { tools } = (await response.json()) as {
        tools: { name: string; parameters: Record<string, unknown> }[];
      };
      return tools.find((tool) => tool.name === name)!.parameters;
    },
    async openNewChat(page, title) {
      const response = await api('POST', '/api/chats', {
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
      return id;
    },
    scriptBash(callId, command, answer) {
      replay.enqueue(
        {
          body: chatBody({
            text: 'Let me run it.',
            calls: [{ id: callId, name: 'bash', fragments: [JSON.stringify({ command })] }],
          }),
        },
        { body: chatBody({ text: answer }) },
      );
    },
    toolMessageSent(callId) {
      for (const request of [...replay.requests].reverse()) {
        const messages = (
          request.body as { messages?: { role: string; tool_call_id?: string; content?: unknown }[] }
        )?.messages;
        const found = messages?.find((message) => message.role === 'tool' && message.tool_call_id === callId);
        if (found) return typeof found.content === 'string' ? found.content : JSON.stringify(found.content);
      }
      return undefined;
    },
    requestCount: () =>
      replay.requests.filter((request: RecordedRequest) => request.method === 'POST').length,
    async close() {
      await browser.close();
      await server.stop();
      await replay.close();
    },
  };
}

/** The approval page for the tests of one file: started before them (within `timeoutMs`), closed after. */
export function useApprovalPage(timeoutMs: number): { readonly fixture: ApprovalPage } {
  let started: ApprovalPage | undefined;
  beforeAll(async () => {
    started = await startApprovalPage();
  }, timeoutMs);
  afterAll(async () => {
    await started?.close();
  });
  return {
    get fixture() {
      if (!started) throw new Error('the approval page is started before the tests run');
      return started;
    },
  };
}

export async function send(page: Page, message: string): Promise<void> {
  await page.getByLabel('Message').fill(message);
  await page.getByLabel('Message').press('Enter');
}

/** The card of a call once it waits, with its Approve button on screen. */
export async function waitingCard(page: Page, callId: string): Promise<Locator> {
  const card = page.locator(`article[data-call-id="${callId}"]`);
  await card.locator('.call-status', { hasText: 'waiting for your approval' }).waitFor();
  await card.getByRole('button', { name: 'Approve' }).waitFor();
  return card;
}

/** What the reader sees of the conversation, entry by entry. */
export function transcriptText(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.transcript > *')].map((node) => (node.textContent ?? '').trim()),
  );
}
