import { describe, expect, test } from 'bun:test';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { decideSandboxIdentity } from '../../src/sandbox/sandbox-identity.ts';
import { judgeProbeOutput } from '../../src/sandbox/sandbox-probe.ts';
import {
  createShellSandboxFromEnvironment,
  readShellSandboxConfig,
} from '../../src/sandbox/shell-sandbox-config.ts';
import { buildShellTool } from '../../src/tools/builtin/build-shell-tool.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { getToolDefinitionsForTools } from '../../src/tools/settings-policy.ts';
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
  test('root drops to the sandbox uid; any other server user keeps its own; uid 0 is refused', () => {
    expect(decideSandboxIdentity(0, undefined).uid).toBe(61000);
    expect(decideSandboxIdentity(0, 5000).uid).toBe(5000);
    expect(decideSandboxIdentity(1000, undefined).uid).toBe(1000);
    expect(() => decideSandboxIdentity(0, 0)).toThrow('The shell sandbox uid must not be 0 (root).');
    expect(() => decideSandboxIdentity(1000, 5000)).toThrow(
      'MANGO_SANDBOX_UID=5000 needs the server to run as root',
    );
  });
});

describe('operator settings', () => {
  test('MANGO_SHELL_SANDBOX accepts bubblewrap (default) and off only; MANGO_SANDBOX_UID a positive uid', () => {
    expect(readShellSandboxConfig({})).toEqual({ mode: 'bubblewrap', passEnv: [], uid: 61000, pool: 4 });
    expect(
      readShellSandboxConfig({
        MANGO_SHELL_SANDBOX: 'off',
        MANGO_SHELL_PASS_ENV: 'CI',
        MANGO_SANDBOX_UID: '7000',
        MANGO_SANDBOX_POOL: '0',
      }),
    ).toEqual({
      mode: 'off',
      passEnv: ['CI'],
      uid: 7000,
      pool: 0,
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
    const sandbox = createBubblewrapSandbox({ programs: { bwrap: '/usr/bin/false' }, log: () => {} });
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
    const sandbox = createBubblewrapSandbox({ programs: { bwrap: oldBwrap }, log: () => {} });
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
