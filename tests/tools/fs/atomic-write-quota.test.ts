/**
 * The atomic write on a full disk, on a real 8 MiB ext4 image: with a quota, a write the workspace has
 * no room for is refused before a temp file exists, and one in a workspace over its quota says so; a
 * write the kernel stops with ENOSPC midway (no quota given, so nothing is checked first) leaves the
 * old file as it was and no temp file, and names the filesystem's figures. write_file and edit_file
 * keep the old file when the new content does not fit.
 */
// Runs alone (tests/run-suite.ts): it attaches loop devices, which files running beside it would race for.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { readdirSync, readFileSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatBytes } from '../../../src/config/byte-size.ts';
import { writeFileAtomically } from '../../../src/tools/fs/atomic-write.ts';
import { createWorkspaceService } from '../../../src/workspaces/create-workspace-service.ts';
import { InMemoryWorkspaceRepository } from '../../../src/workspaces/workspace-repository.ts';
import { createChat } from '../../helpers/call-tool.ts';
import { shareWithSandboxUser, stopChatFileWorkers } from '../../helpers/chat-file-workers.ts';
import { createDiskTestBase, type DiskTestBase, describeDisks, MIB } from '../../helpers/test-disks.ts';
import { FILE_WORK } from '../../helpers/test-file-workers.ts';

const QUOTA = 8 * MIB;

function used(path: string): string {
  const stats = statfsSync(path);
  return formatBytes((stats.blocks - stats.bfree) * stats.bsize);
}

function total(path: string): string {
  const stats = statfsSync(path);
  return formatBytes(stats.blocks * stats.bsize);
}

describeDisks('atomic writes into a full workspace image', () => {
  let layout: DiskTestBase;
  let workspace: string;

  beforeAll(async () => {
    layout = createDiskTestBase();
    const service = createWorkspaceService(
      { dataDirectory: layout.data, workspacesDirectory: layout.workspaces, userDiskBytes: QUOTA },
      new InMemoryWorkspaceRepository(),
    );
    workspace = await service.personalWorkspace('alice');
    writeFileSync(join(workspace, 'old.txt'), 'the old content\n');
  });

  afterAll(async () => {
    await layout.remove();
  });

  const allow = async () => {};

  test('a write the quota has no room for is refused before anything is written', async () => {
    await expect(
      writeFileAtomically(join(workspace, 'old.txt'), new Uint8Array(9 * MIB), {
        verifyTarget: allow,
        quotaBytes: QUOTA,
      }),
    ).rejects.toThrow(
      `The workspace is full: ${used(workspace)} of 8 MiB used, and this write needs 9 MiB; remove files to make room. Nothing was written.`,
    );
    expect(readFileSync(join(workspace, 'old.txt'), 'utf8')).toBe('the old content\n');
    expect(readdirSync(workspace)).toEqual(['old.txt']);
  });

  test('a workspace over its quota takes no write, however small', async () => {
    // Its quota said to be below what it uses, as after a move of more than the quota.
    let caught: unknown;
    try {
      await writeFileAtomically(join(workspace, 'tiny.txt'), new Uint8Array(1), {
        verifyTarget: allow,
        create: true,
        quotaBytes: MIB,
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      classification: 'quota_exceeded',
      message: `The workspace is over its quota (${used(workspace)} used, limit 1 MiB): remove files to write again. Nothing was written.`,
    });
    expect(readdirSync(workspace)).toEqual(['old.txt']);
  });

  test('ENOSPC midway (nothing checked first) leaves the old file and no temp file', async () => {
    let caught: unknown;
    try {
      await writeFileAtomically(join(workspace, 'old.txt'), new Uint8Array(9 * MIB), { verifyTarget: allow });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      classification: 'quota_exceeded',
      message: `The disk holding this directory is full: ${used(workspace)} of ${total(workspace)} used; remove files to make room. Nothing was written.`,
    });
    expect(readFileSync(join(workspace, 'old.txt'), 'utf8')).toBe('the old content\n');
    expect(readdirSync(workspace)).toEqual(['old.txt']);
  });

  afterAll(() => stopChatFileWorkers());

  test.each(FILE_WORK)(
    'write_file and edit_file keep the old file when the new content does not fit (file work %s)',
    async (fileWork) => {
      await shareWithSandboxUser(workspace, fileWork);
      const chat = createChat({
        fileWork,
        workingDirectory: workspace,
        homeDirectory: workspace,
        workspaces: [{ path: workspace, access: 'read-write', kind: 'personal', diskQuotaBytes: QUOTA }],
        parameters: { approval: 'never' },
      });
      expect((await chat.call('read_file', { path: 'old.txt' })).ok).toBe(true);
      const written = await chat.call('write_file', { path: 'old.txt', content: 'w'.repeat(9 * MIB) });
      expect(written).toEqual({
        ok: false,
        error: {
          classification: 'quota_exceeded',
          message: `The workspace is full: ${used(workspace)} of 8 MiB used, and this write needs 9 MiB; remove files to make room. Nothing was written.`,
        },
      });
      const edited = await chat.call('edit_file', {
        path: 'old.txt',
        oldString: 'old',
        newString: 'e'.repeat(9 * MIB),
      });
      expect(edited).toMatchObject({ ok: false, error: { classification: 'quota_exceeded' } });
      expect(readFileSync(join(workspace, 'old.txt'), 'utf8')).toBe('the old content\n');
      expect(readdirSync(workspace)).toEqual(['old.txt']);
    },
  );
});
