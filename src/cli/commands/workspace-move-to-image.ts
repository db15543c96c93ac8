/**
 * `mango workspace move-to-image NAME | --all`: moves plain personal workspaces onto disk images of
 * their own (workspaces/move-workspace-to-image.ts), with the server stopped: it refuses while a server
 * on this host holds the data directory's lock. Safe to run again: an interrupted move is finished, a
 * moved workspace is left as it is. Each user's outcome is one line; a workspace left over its quota
 * says so.
 */
import { formatBytes } from '../../config/byte-size.ts';
import { DatabaseUserRepository } from '../../db/database-user-repository.ts';
import type { User } from '../../users/user-repository.ts';
import { type MoveReport, moveWorkspaceToImage } from '../../workspaces/move-workspace-to-image.ts';
import { WorkspaceDiskError } from '../../workspaces/workspace-disk-error.ts';
import type { WorkspaceDisks } from '../../workspaces/workspace-disks.ts';
import { loadCliConfig } from '../load-cli-config.ts';
import { withCliDatabase } from '../open-cli-database.ts';
import { openWorkspaceService } from '../open-workspace-service.ts';
import type { CliIo } from '../usage-error.ts';

function describeMove(name: string, report: MoveReport, disks: WorkspaceDisks, userId: string): string[] {
  if (report.outcome === 'nothing') {
    return [`"${name}": no workspace to move; it is made on its disk image when first used.`];
  }
  const used = report.usedBytes ?? 0;
  const quota = report.quotaBytes ?? 0;
  const where = `${disks.imagePath(userId)}, ${formatBytes(report.imageBytes ?? 0)}`;
  const state =
    used > quota
      ? `${formatBytes(used)} used, over its quota of ${formatBytes(quota)}: writes are refused and only removing files works until it is under`
      : `${formatBytes(used)} used of its ${formatBytes(quota)} quota`;
  if (report.outcome === 'already') return [`"${name}": already on its disk image (${where}): ${state}.`];
  const lines = [`"${name}": moved onto its disk image (${where}): ${state}.`];
  const copy = report.copy;
  if (copy !== undefined) {
    lines.push(
      `  copied ${copy.directories} directories, ${copy.files} files, ${copy.symlinks} symbolic links (as links) and ${copy.hardLinks} hard links`,
    );
    for (const skipped of copy.skipped) lines.push(`  left out: ${skipped}`);
  }
  for (const path of report.leftBehind ?? []) lines.push(`  left in the old copy (a mount): ${path}`);
  return lines;
}

export async function moveToImage(io: CliIo, name: string | undefined): Promise<number> {
  const config = loadCliConfig(io);
  return withCliDatabase(io, async (database) => {
    const repository = new DatabaseUserRepository(database);
    let users: User[];
    if (name === undefined) users = await repository.list();
    else {
      const user = await repository.findByName(name);
      if (!user) {
        io.stderr(`mango: no user named "${name}" (see \`mango user list\`).\n`);
        return 1;
      }
      users = [user];
    }
    const disks = openWorkspaceService(config, database).disks;
    if (disks === undefined) throw new Error('The workspace service was built without disk quotas.');
    let lock: Awaited<ReturnType<WorkspaceDisks['requireNoServer']>>;
    try {
      await disks.requireAvailable();
      lock = await disks.requireNoServer();
    } catch (error) {
      if (!(error instanceof WorkspaceDiskError)) throw error;
      io.stderr(`mango: ${error.message}\n`);
      return 1;
    }
    let failed = 0;
    try {
      for (const user of users) {
        try {
          const report = await moveWorkspaceToImage(disks, user.id);
          for (const line of describeMove(user.name, report, disks, user.id)) io.stdout(`${line}\n`);
        } catch (error) {
          failed += 1;
          io.stderr(`mango: "${user.name}": ${(error as Error).message}\n`);
        }
      }
    } finally {
      lock.release();
    }
    return failed === 0 ? 0 : 1;
  });
}
