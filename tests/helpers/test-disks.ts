/**
 * Test helper for the disk quotas of personal workspaces: `describeDisks` runs a suite where this host
 * can make and loop-mount ext4 images (root, e2fsprogs, loop devices), skips it with the reason
 * elsewhere, and fails instead when `MANGO_REQUIRE_SANDBOX=1` (CI sets it, and runs as root). A
 * `DiskTestBase` is a temp directory outside `/tmp` (a sandbox's `/tmp` is private) holding the
 * workspaces and data directories of one suite; `remove()` unmounts exactly the mounts under it,
 * detaches exactly the loop devices attached to image files under it (release-mounts.ts), then
 * deletes it. Every image a
 * test makes is a few MiB.
 */
import { describe, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DiskQuotaAvailability, probeDiskQuotas } from '../../src/workspaces/disk-quota-probe.ts';
import { releaseMountsUnder } from './release-mounts.ts';

export const MIB = 1024 * 1024;

async function probeHost(): Promise<DiskQuotaAvailability> {
  const directory = mkdtempSync(join(tmpdir(), 'mango-disk-probe-'));
  try {
    return await probeDiskQuotas(directory, process.getuid?.() === 0);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Whether this host can run the disk quota tests, probed once per test process. */
export const hostDisks: DiskQuotaAvailability = await probeHost();

/** `describe` when images can be mounted here; else skipped with the reason, or failed when required. */
export function describeDisks(name: string, body: () => void): void {
  if (hostDisks.available) {
    describe(name, body);
    return;
  }
  if (process.env.MANGO_REQUIRE_SANDBOX === '1') {
    describe(name, () => {
      test('the host can mount disk images (MANGO_REQUIRE_SANDBOX=1)', () => {
        throw new Error(hostDisks.reason);
      });
    });
    return;
  }
  console.warn(`[skip] ${name}: ${hostDisks.reason}`);
  describe.skip(name, body);
}

export interface DiskTestBase {
  /** Real path of the base directory (0755). */
  base: string;
  /** `<base>/workspaces`, 0711. */
  workspaces: string;
  /** `<base>/data`. */
  data: string;
  /** Unmounts what is mounted under the base, detaches loop devices of its images, removes it. */
  remove(): Promise<void>;
}

export function createDiskTestBase(): DiskTestBase {
  const parent = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
  const base = realpathSync(mkdtempSync(join(parent, 'mango-disk-test-')));
  chmodSync(base, 0o755);
  const workspaces = join(base, 'workspaces');
  const data = join(base, 'data');
  mkdirSync(workspaces, { mode: 0o711 });
  mkdirSync(data, { mode: 0o700 });
  return {
    base,
    workspaces,
    data,
    remove: async () => {
      await releaseMountsUnder(base);
      rmSync(base, { recursive: true, force: true });
    },
  };
}
