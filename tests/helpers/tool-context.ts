/** A fully resolved ToolContext for calling an executor directly, and temp-dir helpers. */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryFreshnessLedger } from '../../src/tools/freshness-ledger.ts';
import type { ToolContext } from '../../src/tools/types.ts';

export function makeToolContext(
  overrides: Partial<Omit<ToolContext, 'settings'>> & { parameters?: Record<string, unknown> } = {},
): ToolContext {
  const { parameters, ...rest } = overrides;
  return {
    userId: 'user-1',
    chatId: 'chat-1',
    workingDirectory: undefined,
    restricted: false,
    settings: { enabled: true, parameters: parameters ?? {} },
    signal: new AbortController().signal,
    ledger: new InMemoryFreshnessLedger(),
    onProgress: () => {},
    now: () => Date.parse('2026-11-30T06:00:00Z'),
    dataDirectory: '/nonexistent-data',
    ...rest,
  };
}

/** A fresh real (symlink-resolved) temp directory; call `remove` in afterAll/afterEach. */
export function makeTempDirectory(prefix = 'mango-test-'): { path: string; remove: () => void } {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** `{path, enabled}` entries for a path list setting. */
export function pathList(...paths: (string | [string, boolean])[]): { path: string; enabled: boolean }[] {
  return paths.map((item) =>
    typeof item === 'string' ? { path: item, enabled: true } : { path: item[0], enabled: item[1] },
  );
}
