import { afterEach, describe, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareWorkspacesDirectory } from '../../src/workspaces/workspaces-directory.ts';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function layout() {
  const root = mkdtempSync(join(tmpdir(), 'mango-workspaces-directory-'));
  roots.push(root);
  return {
    workspaces: join(root, 'workspaces'),
    data: join(root, 'data'),
    installation: join(root, 'install'),
  };
}

const asRoot = process.getuid?.() === 0;

describe('the workspaces directory', () => {
  test.skipIf(!asRoot)('with a sandbox group: made 0710, root’s and the group’s', () => {
    const paths = layout();
    prepareWorkspacesDirectory({
      workspacesDirectory: paths.workspaces,
      dataDirectory: paths.data,
      installationDirectory: paths.installation,
      sandboxGroup: 1_900_000_000,
    });
    const stats = statSync(paths.workspaces);
    expect([stats.mode & 0o7777, stats.uid, stats.gid]).toEqual([0o710, 0, 1_900_000_000]);
  });

  test.skipIf(!asRoot)(
    'with a sandbox group: an existing 0755 directory of another owner is narrowed at start',
    () => {
      const paths = layout();
      mkdirSync(paths.workspaces, { mode: 0o755 });
      chmodSync(paths.workspaces, 0o755);
      Bun.spawnSync(['chown', '61000:61000', paths.workspaces]);
      prepareWorkspacesDirectory({
        workspacesDirectory: paths.workspaces,
        dataDirectory: paths.data,
        installationDirectory: paths.installation,
        sandboxGroup: 1_900_000_000,
      });
      const stats = statSync(paths.workspaces);
      expect([stats.mode & 0o7777, stats.uid, stats.gid]).toEqual([0o710, 0, 1_900_000_000]);
    },
  );

  test('without a sandbox group: made 0711; an existing one keeps its mode', () => {
    const paths = layout();
    prepareWorkspacesDirectory({
      workspacesDirectory: paths.workspaces,
      dataDirectory: paths.data,
      installationDirectory: paths.installation,
    });
    expect(statSync(paths.workspaces).mode & 0o7777).toBe(0o711);
    chmodSync(paths.workspaces, 0o750);
    prepareWorkspacesDirectory({
      workspacesDirectory: paths.workspaces,
      dataDirectory: paths.data,
      installationDirectory: paths.installation,
    });
    expect(statSync(paths.workspaces).mode & 0o7777).toBe(0o750);
  });
});
