/**
 * The systemd unit of docs/operating.md ("Under systemd"), the one `ini` block of that page, passes
 * `systemd-analyze verify` as `mango@8081.service`, with its `ExecStart` binary and the directories it
 * names swapped for ones that exist here, and sets none of the options that break the shell sandbox.
 * Skipped, saying why, only where systemd-analyze is missing.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SYSTEMD_ANALYZE = Bun.which('systemd-analyze');
const OPERATING = join(import.meta.dir, '..', '..', 'docs', 'operating.md');

async function readUnit(): Promise<string> {
  const page = await readFile(OPERATING, 'utf8');
  const blocks = [...page.matchAll(/^```ini\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
  if (blocks.length !== 1) throw new Error(`docs/operating.md has ${blocks.length} ini blocks, not one`);
  return blocks[0]!;
}

test('the unit sets none of the options that take the sandbox’s namespaces, cgroups or devices', async () => {
  const settings = (await readUnit())
    .split('\n')
    .filter((line) => /^[A-Za-z]+=/.test(line))
    .map((line) => line.slice(0, line.indexOf('=')));
  for (const breaking of [
    'RestrictNamespaces',
    'ProtectControlGroups',
    'PrivateUsers',
    'PrivateDevices',
    'PrivateMounts',
    'DeviceAllow',
    'DevicePolicy',
    'CapabilityBoundingSet',
    'ProtectClock',
    'ProtectKernelLogs',
  ]) {
    expect(settings).not.toContain(breaking);
  }
  expect(settings).toContain('ExecStart');
});

describe.skipIf(SYSTEMD_ANALYZE === null)('systemd-analyze verify', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'mango-systemd-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('mango@8081.service verifies without a complaint', async () => {
    const checkout = join(root, 'opt-mango');
    await mkdir(checkout);
    const environment = join(root, 'mango.env');
    await writeFile(environment, 'DATABASE_URL=postgres://mango@127.0.0.1/mango\n');
    const unit = (await readUnit())
      .replace('ExecStart=/opt/mango/node_modules/.bin/bun ', `ExecStart=${process.execPath} `)
      .replace('WorkingDirectory=/opt/mango', `WorkingDirectory=${checkout}`)
      .replace('EnvironmentFile=/etc/mango/mango.env', `EnvironmentFile=${environment}`);
    expect(unit).toContain(`ExecStart=${process.execPath} src/cli/main.ts serve`);
    const file = join(root, 'mango@8081.service');
    await writeFile(file, unit);
    const verify = Bun.spawn([SYSTEMD_ANALYZE!, 'verify', '--man=no', file], {
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(verify.stdout).text(),
      new Response(verify.stderr).text(),
      verify.exited,
    ]);
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});

if (SYSTEMD_ANALYZE === null) {
  test.skip('systemd-analyze verify: skipped, systemd-analyze is not installed', () => {});
}
