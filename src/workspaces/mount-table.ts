/**
 * What is mounted where, as the kernel says: this process's mount table (`/proc/self/mountinfo`) and
 * the files behind loop devices (`/sys/block/loopN/loop/backing_file`). Deciding from these, not from a
 * `stat` alone, is how the server knows that the filesystem at a workspace's path is that user's image
 * and no other, and that an image is attached to no loop device (so mounted nowhere, in no namespace)
 * before it changes the image offline.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface MountEntry {
  /** Where it is mounted (unescaped). */
  mountPoint: string;
  /** The filesystem type, `ext4`. */
  fsType: string;
  /** The mount source, `/dev/loop3` for a loop-mounted image. */
  source: string;
  /** Per-mount options (`rw`, `nosuid`…). */
  mountOptions: readonly string[];
  /** Per-superblock options (`rw`, `minixdf`…). */
  superOptions: readonly string[];
}

/** mountinfo escapes space, tab, newline and backslash as three octal digits. */
function unescapeField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_match, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );
}

/** Parses mountinfo text (`proc(5)`): the fields before ` - `, then type, source and super options. */
export function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const separator = line.indexOf(' - ');
    if (separator < 0) continue;
    const before = line.slice(0, separator).split(' ');
    const after = line.slice(separator + 3).split(' ');
    if (before.length < 6 || after.length < 3) continue;
    entries.push({
      mountPoint: unescapeField(before[4]!),
      mountOptions: before[5]!.split(','),
      fsType: after[0]!,
      source: unescapeField(after[1]!),
      superOptions: after[2]!.split(','),
    });
  }
  return entries;
}

export function readMountTable(): MountEntry[] {
  return parseMountInfo(readFileSync('/proc/self/mountinfo', 'utf8'));
}

/** The mount on top at exactly `mountPoint` (the last one the table lists there), or undefined. */
export function mountAt(
  mountPoint: string,
  table: readonly MountEntry[] = readMountTable(),
): MountEntry | undefined {
  return table.findLast((entry) => entry.mountPoint === mountPoint);
}

/** The file a loop device (`/dev/loop3`) is attached to, or undefined for anything else. */
export function loopBackingFile(device: string): string | undefined {
  const match = /^\/dev\/(loop\d+)$/.exec(device);
  if (match === null) return undefined;
  try {
    return readFileSync(`/sys/block/${match[1]}/loop/backing_file`, 'utf8').replace(/\n$/, '');
  } catch {
    // Not attached (the device exists but has no file), or no such device.
    return undefined;
  }
}

/** Every loop device attached to `file` (its real path); empty when none is. */
export function loopDevicesBacking(file: string): string[] {
  let names: string[];
  try {
    names = readdirSync('/sys/block').filter((name) => /^loop\d+$/.test(name));
  } catch {
    return [];
  }
  return names.map((name) => `/dev/${name}`).filter((device) => loopBackingFile(device) === file);
}
