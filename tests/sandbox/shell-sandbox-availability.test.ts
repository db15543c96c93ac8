import { describe, expect, test } from 'bun:test';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { decideSandboxIdentities, identityForCall } from '../../src/sandbox/sandbox-identity.ts';
import { judgeProbeOutput } from '../../src/sandbox/sandbox-probe.ts';
import {
  createShellSandboxFromEnvironment,
  readShellSandboxConfig,
  sandboxRangeRefusal,
} from '../../src/sandbox/shell-sandbox-config.ts';
import { buildShellTool } from '../../src/tools/builtin/build-shell-tool.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { getToolDefinitionsForTools } from '../../src/tools/tool-settings-resolver.ts';
import { MemorySandboxIdRepository, testSandboxUsers } from '../helpers/test-sandbox-users.ts';
import { makeReachableSet } from '../helpers/tool-context.ts';

describe('the start-up probe', () => {
  test('accepts only a non-root uid with no capabilities and no_new_privs', () => {
    expect(judgeProbeOutput('61000\nCapEff:\t0000000000000000\nNoNewPrivs:\t1\n')).toBeUndefined();
    expect(judgeProbeOutput('0\nCapEff:\t0000000000000000\nNoNewPrivs:\t1\n')).toBe(
      'a command in the probe sandbox ran as uid 0 (root).',
    );
    expect(judgeProbeOutput('61000\nCapEff:\t000001ffffffffff\nNoNewPrivs:\t1\n')).toBe(
      'a command in the probe sandbox kept capabilities (CapEff: 000001ffffffffff).',
    );
    expect(judgeProbeOutput('61000\nNoNewPrivs:\t1\n')).toBe(
      'a command in the probe sandbox kept capabilities (CapEff: missing).',
    );
    expect(judgeProbeOutput('61000\nCapEff:\t0000000000000000\nNoNewPrivs:\t0\n')).toBe(
      'no_new_privs was not set in the probe sandbox.',
    );
    expect(judgeProbeOutput('')).toBe('the probe printed no uid (got "").');
  });
});

describe('who commands run as', () => {
  test('root gives each user a uid of their own from the range; any other server user runs all as itself', async () => {
    const users = testSandboxUsers({ base: 3_000_000, count: 1000 }, new MemorySandboxIdRepository());
    const perUser = decideSandboxIdentities(0, 0, users);
    if (perUser.kind !== 'per-user') throw new Error(`got ${perUser.kind}`);
    const alice = await identityForCall(perUser, 'alice', []);
    const bob = await identityForCall(perUser, 'bob', []);
    expect([alice.uid, alice.gid, alice.groups]).toEqual([3_000_001, 3_000_001, [3_000_000]]);
    expect([bob.uid, bob.gid, bob.groups]).toEqual([3_000_002, 3_000_002, [3_000_000]]);
    expect((await identityForCall(perUser, 'alice', [])).uid).toBe(3_000_001);
    const own = decideSandboxIdentities(1000, 1001, users);
    if (own.kind !== 'server') throw new Error(`got ${own.kind}`);
    expect(await identityForCall(own, 'alice', [])).toMatchObject({ uid: 1000, gid: 1001, groups: [] });
    expect(await identityForCall(own, 'bob', [])).toMatchObject({ uid: 1000, gid: 1001, groups: [] });
  });

  test('root without a store of per-user ids runs nothing, and says why', () => {
    expect(decideSandboxIdentities(0, 0, undefined)).toEqual({
      kind: 'unavailable',
      reason:
        'the server runs as root but was given no store of per-user uids, and it does not run one tenant’s commands as another’s uid.',
    });
  });

  test('a full range refuses a new user with the variable to raise; users who have an id keep it', async () => {
    const users = testSandboxUsers({ base: 3_000_000, count: 3 }, new MemorySandboxIdRepository());
    expect((await users.userFor('alice', [])).uid).toBe(3_000_001);
    expect((await users.userFor('bob', [])).uid).toBe(3_000_002);
    await expect(users.userFor('carol', [])).rejects.toThrow(
      'Every id of the sandbox range 3000000–3000002 is taken, so this user has no uid to run commands as; raise MANGO_SANDBOX_UID_COUNT (ids are never reused).',
    );
    expect((await users.userFor('alice', [])).uid).toBe(3_000_001);
  });

  test('a range that shares ids with host accounts, their subordinate ranges or the old uid is refused', () => {
    const config = { range: { base: 100_000, count: 70_000 }, legacyUid: 61000 };
    expect(
      sandboxRangeRefusal(config, {
        '/etc/passwd': 'root:x:0:0::/root:/bin/bash\nbuilder:x:150000:150000::/home/b:/bin/sh\n',
        '/etc/group': 'root:x:0:\n',
        '/etc/subuid': 'dev:165536:65536\n',
      }),
    ).toBe(
      'the sandbox range 100000–169999 (MANGO_SANDBOX_UID_BASE, MANGO_SANDBOX_UID_COUNT) holds ids the host already uses: /etc/passwd gives id 150000 to "builder"; /etc/subuid gives ids 165536–231071 to "dev". Move the range so that no host account shares an id with a tenant.',
    );
    expect(sandboxRangeRefusal({ range: { base: 60_000, count: 2000 }, legacyUid: 61000 }, {})).toContain(
      'MANGO_SANDBOX_UID gives id 61000 to "the uid of earlier versions"',
    );
    expect(
      sandboxRangeRefusal({ range: { base: 2_147_000_000, count: 16_777_216 }, legacyUid: 61000 }, {}),
    ).toBe(
      'MANGO_SANDBOX_UID_BASE=2147000000 with MANGO_SANDBOX_UID_COUNT=16777216 ends at 2163777215, above 2147483646; lower one of them.',
    );
    expect(
      sandboxRangeRefusal(
        { range: { base: 1_900_000_000, count: 65_536 }, legacyUid: 61000 },
        {
          '/etc/passwd': 'root:x:0:0::/root:/bin/bash\nnobody:x:65534:65534::/:/usr/sbin/nologin\n',
        },
      ),
    ).toBeUndefined();
  });
});

describe('operator settings', () => {
  test('MANGO_SHELL_SANDBOX accepts bubblewrap (default) and off only; MANGO_SANDBOX_UID a positive uid; MANGO_SANDBOX_USER_MEMORY bytes from 64 MiB', () => {
    expect(readShellSandboxConfig({})).toEqual({
      mode: 'bubblewrap',
      passEnv: [],
      range: { base: 1_900_000_000, count: 65_536 },
      legacyUid: 61000,
      pool: 4,
      userMemoryBytes: 2 * 1024 ** 3,
    });
    expect(
      readShellSandboxConfig({
        MANGO_SHELL_SANDBOX: 'off',
        MANGO_SHELL_PASS_ENV: 'CI',
        MANGO_SANDBOX_UID: '7000',
        MANGO_SANDBOX_UID_BASE: '500000',
        MANGO_SANDBOX_UID_COUNT: '100',
        MANGO_SANDBOX_POOL: '0',
        MANGO_SANDBOX_USER_MEMORY: '536870912',
      }),
    ).toEqual({
      mode: 'off',
      passEnv: ['CI'],
      range: { base: 500_000, count: 100 },
      legacyUid: 7000,
      pool: 0,
      userMemoryBytes: 512 * 1024 ** 2,
    });
    expect(() => readShellSandboxConfig({ MANGO_SHELL_SANDBOX: 'none' })).toThrow(
      'MANGO_SHELL_SANDBOX must be "bubblewrap" or "off", got "none".',
    );
    expect(() => readShellSandboxConfig({ MANGO_SANDBOX_UID: '-1' })).toThrow(
      'MANGO_SANDBOX_UID must be a uid from 1 to 4294967294, got "-1".',
    );
    expect(() => readShellSandboxConfig({ MANGO_SANDBOX_POOL: 'many' })).toThrow(
      'MANGO_SANDBOX_POOL must be a count from 0 to 64, got "many".',
    );
    for (const text of ['2G', '1048576']) {
      expect(() => readShellSandboxConfig({ MANGO_SANDBOX_USER_MEMORY: text })).toThrow(
        `MANGO_SANDBOX_USER_MEMORY must be a number of bytes, at least 67108864 (64 MiB), such as 2147483648 for 2 GiB, got "${text}".`,
      );
    }
  });

  test('a misconfigured sandbox is unavailable with the reason, never silently off', () => {
    const sandbox = createShellSandboxFromEnvironment({ MANGO_SHELL_SANDBOX: 'disabled' });
    expect(sandbox.status()).toEqual({
      available: false,
      reason:
        'The shell sandbox is misconfigured: MANGO_SHELL_SANDBOX must be "bubblewrap" or "off", got "disabled".',
    });
  });

  test('off is available, and says so', () => {
    expect(createShellSandboxFromEnvironment({ MANGO_SHELL_SANDBOX: 'off' }).status()).toMatchObject({
      available: true,
      mode: 'off',
    });
  });
});

describe('fails closed', () => {
  const missing = () => createBubblewrapSandbox({ programs: { bwrap: '/nonexistent/bwrap' }, log: () => {} });

  test('no bwrap: unavailable with the reason; the tool is not offered and a direct call fails with it', async () => {
    const sandbox = missing();
    try {
      const status = sandbox.status();
      expect(status.available).toBe(false);
      const reason = status.available ? '' : status.reason;
      expect(reason).toBe(
        'The shell sandbox cannot run: bubblewrap (bwrap) is not installed; install the "bubblewrap" package.',
      );
      const tool = buildShellTool('bash', { sandbox: () => sandbox });
      expect(tool.isAvailable?.()).toBe(false);
      expect(tool.unavailableReason?.()).toBe(reason);
      expect(getToolDefinitionsForTools([tool], { bash: { enabled: true } })).toEqual([]);
      const registry = new ToolRegistry();
      registry.register(tool);
      const outcome = await executeTool(
        'bash',
        { command: 'echo ran' },
        { userId: 'u', reachable: makeReachableSet({ workingDirectory: process.cwd() }) },
        { enabled: true },
        { registry },
      );
      expect(outcome).toEqual({ ok: false, error: { classification: 'execution_error', message: reason } });
    } finally {
      sandbox.dispose();
    }
  });

  test('a probe that fails is unavailable with what it printed', () => {
    // A "bwrap" that runs but does not build a sandbox: the probe's failure is the reason.
    const sandbox = createBubblewrapSandbox({
      programs: { bwrap: '/usr/bin/false' },
      users: testSandboxUsers(),
      log: () => {},
    });
    try {
      expect(sandbox.status()).toEqual({
        available: false,
        reason: 'The shell sandbox cannot run: the probe sandbox failed (exit 1): no message',
      });
    } finally {
      sandbox.dispose();
    }
  });

  test('a bubblewrap without --bind-fd (before 0.10) is unavailable, naming the version needed', () => {
    // What bubblewrap 0.6 (Ubuntu 22.04) prints for the probe's first mount by descriptor.
    const directory = mkdtempSync(join('/var/tmp', 'mango-old-bwrap-'));
    chmodSync(directory, 0o755);
    const oldBwrap = join(directory, 'bwrap');
    writeFileSync(oldBwrap, '#!/bin/sh\necho "bwrap: Unknown option --ro-bind-fd" >&2\nexit 1\n', {
      mode: 0o755,
    });
    const sandbox = createBubblewrapSandbox({
      programs: { bwrap: oldBwrap },
      users: testSandboxUsers(),
      log: () => {},
    });
    try {
      expect(sandbox.status()).toEqual({
        available: false,
        reason: `The shell sandbox cannot run: ${oldBwrap} has no --bind-fd, which the sandbox needs to mount each directory as the object the server checked (bubblewrap 0.10 or later, or Debian 12's 0.8.0-2+deb12u1): bwrap: Unknown option --ro-bind-fd`,
      });
    } finally {
      sandbox.dispose();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
