/**
 * Test helper: a real bubblewrap sandbox and the layout the acceptance tests run in (a base directory
 * with a workspaces directory holding two users' workspaces, a data directory inside a read-only grant,
 * and a file planted elsewhere), plus `describeSandbox`, which skips with the host's reason where
 * the sandbox cannot run and fails instead when `MANGO_REQUIRE_SANDBOX=1` (CI sets it).
 */
import { afterAll, beforeAll, describe, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BubblewrapSandbox,
  type BubblewrapSandboxOptions,
  createBubblewrapSandbox,
} from '../../src/sandbox/bubblewrap-sandbox.ts';
import { handToSandboxUser } from '../../src/sandbox/sandbox-file-owner.ts';
import { computeReachableSet, type ReachableSet } from '../../src/tools/access/reachable-set.ts';
import { testSandboxUsers } from '../helpers/test-sandbox-users.ts';

/** A sandbox for tests: silent unless `lines` collects its log. */
export function createTestSandbox(
  options: BubblewrapSandboxOptions = {},
  lines: string[] = [],
): BubblewrapSandbox {
  return createBubblewrapSandbox({ log: (line) => lines.push(line), users: testSandboxUsers(), ...options });
}

/** `describe` when the host can sandbox; otherwise skipped with the reason, or failed when required. */
export function describeSandbox(name: string, body: () => void): void {
  const probe = createTestSandbox();
  const status = probe.status();
  probe.dispose();
  if (status.available) {
    describe(name, body);
    return;
  }
  if (process.env.MANGO_REQUIRE_SANDBOX === '1') {
    describe(name, () => {
      test('the host can run the shell sandbox (MANGO_REQUIRE_SANDBOX=1)', () => {
        throw new Error(status.reason);
      });
    });
    return;
  }
  console.warn(`[skip] ${name}: ${status.reason}`);
  describe.skip(name, body);
}

export interface SandboxLayout {
  base: string;
  workspaces: string;
  /** The user's personal workspace: the working directory, read-write. */
  alice: string;
  /** Another user's personal workspace, never visible. */
  bob: string;
  /** A read-only grant. */
  projects: string;
  /** The data directory, protected, lying inside the read-only grant. */
  data: string;
  /** A directory outside every listed path, with a planted file. */
  elsewhere: string;
  planted: string;
  reachable: ReachableSet;
  remove(): void;
}

/** Builds the layout; directories the sandbox uid must traverse are 0755 (mkdtemp makes 0700). */
export async function createSandboxLayout(sandbox: BubblewrapSandbox): Promise<SandboxLayout> {
  // Outside /tmp, like a real deployment: the sandbox's /tmp is private, so the ancestors of a root
  // under /tmp would be writable scratch space inside it (harmless, but not what a deployment sees).
  const parent = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
  const base = mkdtempSync(join(parent, 'mango-sandbox-test-'));
  chmodSync(base, 0o755);
  const workspaces = join(base, 'workspaces');
  const alice = join(workspaces, 'alice');
  const bob = join(workspaces, 'bob');
  const projects = join(base, 'projects');
  const data = join(projects, 'mango-data');
  const elsewhere = join(base, `elsewhere-${crypto.randomUUID()}`);
  for (const directory of [workspaces, alice, bob, projects, data, elsewhere])
    mkdirSync(directory, { mode: 0o755 });
  chmodSync(workspaces, 0o711);
  writeFileSync(join(bob, 'diary.txt'), 'bob-private-diary\n', { mode: 0o644 });
  writeFileSync(join(projects, 'readme.txt'), 'shared project readme\n', { mode: 0o644 });
  writeFileSync(join(data, 'mango.db'), 'database-secret-rows\n', { mode: 0o644 });
  const planted = join(elsewhere, 'planted.txt');
  writeFileSync(planted, 'planted-secret\n', { mode: 0o644 });
  await handToSandboxUser(alice, 'alice', sandbox);
  const reachable = computeReachableSet({
    workspaces: [
      { path: alice, access: 'read-write', kind: 'personal' },
      { path: projects, access: 'read-only', kind: 'granted' },
    ],
    workingDirectory: alice,
    homeDirectory: alice,
    confined: false,
    protectedPaths: [data, process.cwd(), '/proc', '/sys', '/dev', workspaces],
  });
  return {
    base,
    workspaces,
    alice,
    bob,
    projects,
    data,
    elsewhere,
    planted,
    reachable,
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** A sandbox and its layout for the tests of one `describe`: made before them, removed after them. */
export function useTestSandbox(
  options: BubblewrapSandboxOptions = {},
  lines: string[] = [],
): {
  readonly sandbox: BubblewrapSandbox;
  readonly layout: SandboxLayout;
} {
  const handle: { sandbox?: BubblewrapSandbox; layout?: SandboxLayout } = {};
  beforeAll(async () => {
    handle.sandbox = createTestSandbox(options, lines);
    handle.layout = await createSandboxLayout(handle.sandbox);
  });
  afterAll(() => {
    handle.sandbox?.dispose();
    handle.layout?.remove();
  });
  return {
    get sandbox() {
      if (!handle.sandbox) throw new Error('the sandbox is made before the tests run');
      return handle.sandbox;
    },
    get layout() {
      if (!handle.layout) throw new Error('the layout is made before the tests run');
      return handle.layout;
    },
  };
}
