/**
 * An in-process API over a real test database, with a registry of test tools:
 * `tunable` (one setting of every type, off by default) and `locked` (canDisable: false).
 */
import { createApp } from '../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../src/http/app-dependencies.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { makeSettingsTool, makeTool } from './fake-tools.ts';
import { type Backend, createTestDatabase, type TestDatabase } from './test-database.ts';
import { type FileWork, type InstalledTestFileWork, installTestFileWork } from './test-file-workers.ts';

export const FIXED_NOW = Date.UTC(2026, 10, 30, 6, 0, 0);

export function createTestRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(makeSettingsTool());
  const locked = makeTool({ name: 'locked' });
  locked.settings = { ...locked.settings, canDisable: false, title: 'Locked' };
  registry.register(locked);
  return registry;
}

export interface TestApp {
  handle: TestDatabase;
  deps: AppDependencies;
  app: ReturnType<typeof createApp>;
  logged: string[];
  /** Where its file work runs (`options.fileWork`, default in this process) and the workers' pool. */
  fileWork: InstalledTestFileWork;
  /** Sends a request in process; `body` strings are sent as is, other values as JSON. */
  request(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; json: unknown; contentType: string | null }>;
  /** Rebuilds deps and app over a reopened connection (a restart). */
  restart(): Promise<void>;
  dispose(): Promise<void>;
}

export async function createTestApp(
  backend: Backend,
  registry = createTestRegistry(),
  options: { fileWork?: FileWork } = {},
): Promise<TestApp> {
  const handle = await createTestDatabase(backend);
  // Before the dependencies, as the server does: personal workspaces are made for the sandbox's uid.
  const fileWork = installTestFileWork(handle.database, options.fileWork ?? 'in-process');
  const logged: string[] = [];
  const build = () =>
    createAppDependencies({
      config: handle.config,
      database: handle.database,
      registry,
      now: () => FIXED_NOW,
      log: (message) => logged.push(message),
    });
  const result: TestApp = {
    handle,
    deps: build(),
    app: undefined as unknown as ReturnType<typeof createApp>,
    logged,
    fileWork,
    request: async (method, path, options = {}) => {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
      let body: string | undefined;
      if (options.body !== undefined) {
        body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await result.app.handle(
        new Request(`http://localhost${path}`, { method, headers, body }),
      );
      const text = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = text;
      }
      return { status: response.status, json, contentType: response.headers.get('content-type') };
    },
    restart: async () => {
      await handle.reopen();
      result.deps = build();
      result.app = createApp(result.deps);
    },
    dispose: () => {
      fileWork.stop();
      return handle.dispose();
    },
  };
  result.app = createApp(result.deps);
  return result;
}
