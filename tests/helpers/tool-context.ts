/** A fully resolved ToolContext for calling an executor directly, reachable sets, and temp-dir helpers. */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { computeProtectedPaths } from '../../src/tools/access/protected-paths.ts';
import {
  computeOperatorReachableSet,
  computeReachableSet,
  type ReachableSet,
  type Workspace,
} from '../../src/tools/access/reachable-set.ts';
import { InMemoryFreshnessLedger } from '../../src/tools/freshness-ledger.ts';
import type { ToolContext } from '../../src/tools/types.ts';

export interface ReachableFixture {
  /** Real working directory of the call; the real temp directory when omitted. */
  workingDirectory?: string;
  /** True: the call reaches only its working directory. */
  confined?: boolean;
  /** The user's workspaces; omitted, an unconfined call reaches the whole filesystem (operator mode). */
  workspaces?: Workspace[];
  /** Where `~` points; the server user's home when omitted. */
  homeDirectory?: string;
  /** The protected set; the deployment's kernel paths and installation directory when omitted. */
  protectedPaths?: string[];
}

/** The reachable set a test call runs with. */
export function makeReachableSet(fixture: ReachableFixture = {}): ReachableSet {
  const workingDirectory = fixture.workingDirectory ?? realpathSync(tmpdir());
  const homeDirectory = fixture.homeDirectory ?? realpathSync(homedir());
  const protectedPaths = fixture.protectedPaths ?? computeProtectedPaths({});
  const confined = fixture.confined ?? false;
  if (fixture.workspaces === undefined && !confined) {
    return computeOperatorReachableSet(workingDirectory, homeDirectory, protectedPaths);
  }
  return computeReachableSet({
    workspaces: fixture.workspaces ?? [{ path: workingDirectory, access: 'read-write', kind: 'personal' }],
    workingDirectory,
    homeDirectory,
    confined,
    protectedPaths,
  });
}

export function makeToolContext(
  overrides: Partial<Omit<ToolContext, 'settings'>> & {
    parameters?: Record<string, unknown>;
    /** Builds `reachable` when it is not given. */
    binding?: ReachableFixture;
  } = {},
): ToolContext {
  const { parameters, binding, ...rest } = overrides;
  return {
    userId: 'user-1',
    chatId: 'chat-1',
    reachable: makeReachableSet(binding),
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
