/**
 * Fixture process for give-grant-to-group.test.ts, run by the test under `unshare --mount
 * --propagation private` (as root): mounts a tmpfs at `<granted>/mounted` in its own mount namespace
 * (gone with the process, whatever happens), puts a file on it, gives `<granted>` to the group and
 * prints the change and the mounted file's group as one JSON line.
 */
import { spawnSync } from 'node:child_process';
import { lstatSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { giveGrantToGroup } from '../../../src/sandbox/give-grant-to-group.ts';

const [granted, group] = [process.argv[2]!, Number(process.argv[3])];
const mounted = join(granted, 'mounted');
const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0755', 'mango-test', mounted], {
  encoding: 'utf8',
});
if (mount.status !== 0) {
  console.log(JSON.stringify({ error: `mount: ${mount.stderr.trim()}` }));
  process.exit(2);
}
writeFileSync(join(mounted, 'elsewhere.txt'), 'on another filesystem\n');
const change = giveGrantToGroup(granted, group, 'read-write');
console.log(
  JSON.stringify({
    change,
    mountedGroup: lstatSync(mounted).gid,
    fileGroup: lstatSync(join(mounted, 'elsewhere.txt')).gid,
  }),
);
