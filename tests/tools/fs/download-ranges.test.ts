/**
 * A download in ranges, done in this process and by alice's file worker alike: `openDownload` says
 * what is at the path (a file with its size, first bytes and identity; a directory; a FIFO; a path out
 * of reach), and `readRange` serves bytes of that same object only: a file renamed over the name, or
 * the name swapped for a link to it, fails the range as a changed path.
 */
import { describe, expect, test } from 'bun:test';
import { execFileSync } from 'node:child_process';
import { renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWorkerFileOperations } from '../../../src/file-worker/worker-file-operations.ts';
import { inProcessFileOperations } from '../../../src/sandbox/host-file-operations.ts';
import { ToolError } from '../../../src/tools/errors.ts';
import type { DownloadOutcome, FileOperations } from '../../../src/tools/fs/file-operations.ts';
import { userFileContext } from '../../../src/tools/user-file-context.ts';
import { useFileWorkers } from '../../file-worker/file-worker-test-host.ts';
import { describeSandbox, useTestSandbox } from '../../sandbox/sandbox-host.ts';

const MIB = 1024 * 1024;

/** 2.5 MiB whose every byte depends on its offset, so a misplaced range cannot pass. */
function content(): Uint8Array {
  const bytes = new Uint8Array(2.5 * MIB);
  for (let index = 0; index < bytes.length; index++) bytes[index] = (index * 31 + (index >> 12)) & 0xff;
  return bytes;
}

async function failureOf(work: Promise<unknown>): Promise<{ classification: string; message: string }> {
  try {
    await work;
  } catch (error) {
    if (ToolError.isInstance(error)) return { classification: error.classification, message: error.message };
    throw error;
  }
  throw new Error('the call succeeded');
}

const CHANGED =
  'Cannot read "big.bin": the path changed while the tool was using it (a file or directory on it was moved, or replaced by a link), so nothing was done there. Check it with list_directory and try again.';

describeSandbox('downloads in ranges', () => {
  const host = useTestSandbox();
  const workers = useFileWorkers(() => host.sandbox);
  const implementations: [string, () => FileOperations][] = [
    ['in process', () => inProcessFileOperations(userFileContext('alice', host.layout.reachable, Date.now))],
    [
      "in alice's worker",
      () =>
        createWorkerFileOperations(userFileContext('alice', host.layout.reachable, Date.now), workers.pool),
    ],
  ];

  describe.each(implementations)('%s', (_name, operations) => {
    const opened = async (): Promise<Extract<DownloadOutcome, { kind: 'file' }>> => {
      const outcome = await operations().openDownload('big.bin');
      if (outcome.kind !== 'file') throw new Error(`not a file: ${outcome.kind}`);
      return outcome;
    };

    test('a file is served in ranges of its own bytes, up to its end', async () => {
      const bytes = content();
      writeFileSync(join(host.layout.alice, 'big.bin'), bytes);
      const file = await opened();
      expect(file.size).toBe(bytes.length);
      expect(file.signature).toEqual(bytes.subarray(0, 16));
      expect(file.real).toBe(join(host.layout.alice, 'big.bin'));
      expect(file.identity).toMatch(/^\d+:\d+$/);
      const ops = operations();
      const read = (offset: number, length: number) =>
        ops.readRange({ real: file.real, identity: file.identity, offset, length, shown: 'big.bin' });
      expect(await read(0, MIB)).toEqual(bytes.subarray(0, MIB));
      expect(await read(2 * MIB, MIB)).toEqual(bytes.subarray(2 * MIB));
      expect((await read(bytes.length, MIB)).length).toBe(0);
    });

    test('another file renamed over the name, or a link in its place, fails the range as a changed path', async () => {
      const { alice } = host.layout;
      writeFileSync(join(alice, 'big.bin'), 'first\n');
      const file = await opened();
      const range = { real: file.real, identity: file.identity, offset: 0, length: 16, shown: 'big.bin' };
      writeFileSync(join(alice, 'other.bin'), 'other\n');
      renameSync(join(alice, 'other.bin'), join(alice, 'big.bin'));
      expect(await failureOf(operations().readRange(range))).toEqual({
        classification: 'permission_denied',
        message: CHANGED,
      });
      const again = await opened();
      renameSync(join(alice, 'big.bin'), join(alice, 'moved.bin'));
      symlinkSync(join(alice, 'moved.bin'), join(alice, 'big.bin'));
      try {
        expect(
          await failureOf(operations().readRange({ ...range, real: again.real, identity: again.identity })),
        ).toEqual({ classification: 'permission_denied', message: CHANGED });
      } finally {
        rmSync(join(alice, 'big.bin'));
        rmSync(join(alice, 'moved.bin'));
      }
    });

    test("a directory, a FIFO and bob's diary are no download", async () => {
      const { alice, bob } = host.layout;
      execFileSync('mkfifo', [join(alice, 'pipe')]);
      try {
        expect(await operations().openDownload('.')).toEqual({ kind: 'directory' });
        expect(await operations().openDownload('pipe')).toEqual({ kind: 'special' });
        expect(await operations().openDownload(join(bob, 'diary.txt'))).toEqual({ kind: 'refused' });
      } finally {
        rmSync(join(alice, 'pipe'));
      }
    });
  });
});
