/**
 * Mounts by object: the sources of a plan's held mounts (bubblewrap-mount-plan.ts), opened the moment a
 * sandbox is built and handed to bubblewrap as descriptors (`--bind-fd FD DEST`, `--ro-bind-fd FD DEST`).
 *
 * Why: the server (often root) decides a path, then bubblewrap would resolve the name again. A tenant
 * may change their workspace at the same moment (swap a directory with a symlink to `/`, in a loop), so
 * the second resolution could mount anything. Here the name is resolved once, by the server, with no
 * link allowed on any component (`openat2` `RESOLVE_NO_SYMLINKS`, descriptors/held-directory.ts): the
 * object opened is the one at the validated real path, or the open fails. bubblewrap then mounts what the
 * descriptor's `/proc/self/fd` entry resolves to as the sandbox uid and compares device and inode with
 * the descriptor, refusing with "Race condition binding dirfd" on a mismatch (sandbox-build-failure.ts).
 *
 * Guarantees:
 * - Each held mount gets a descriptor of its own (bubblewrap closes one after using it), numbered from
 *   `firstDescriptor` in plan order; the caller places descriptor `i` at child descriptor
 *   `firstDescriptor + i` (Bun.spawn's stdio array) and closes the server's copies right after spawn.
 * - A source that is a link, or has one on its way, fails with {@link MountSourceError} (`ELOOP`): a
 *   swap makes the call fail, it never mounts anything else. A missing source of an optional mount
 *   (`required: false`) is left out, exactly like bubblewrap's `--bind-try`.
 * - The device and inode of every source are recorded, and for a cover those of the host path it
 *   hides, so a sandbox built ahead (sandbox-pool.ts) is checked again when it is handed over:
 *   {@link mountSourcesUnchanged} reopens each now and compares.
 */
import { fstatSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { HeldDirectory } from '../descriptors/held-directory.ts';
import { closeDescriptor, O_PATH } from '../descriptors/linux-file-calls.ts';
import { errorCodeOf } from '../descriptors/system-call-error.ts';
import { errorMessage } from '../errors/error-message.ts';
import { MangoError } from '../errors/mango-error.ts';
import type { HeldMount, PlanArgument } from './bubblewrap-mount-plan.ts';

/** What a sandbox was built with at one held mount: the source, its object, and its child descriptor. */
export interface MountIdentity {
  source: string;
  kind: HeldMount['kind'];
  /** `device:inode` of the object mounted, or `missing` for an optional mount that was left out. */
  object: string;
  /** The descriptor number bubblewrap got it on (for messages), or -1 when left out. */
  descriptor: number;
  /** A cover's destination (a host path it hides) and the object that was there, `device:inode`. */
  covered?: { path: string; object: string };
}

/** A plan made concrete: bubblewrap's argument vector and the descriptors it refers to. */
export interface OpenedMounts {
  argv: string[];
  /** Descriptor `i` must be the child's descriptor `firstDescriptor + i`. */
  descriptors: number[];
  identities: MountIdentity[];
  /** Closes the server's copies of the descriptors (once the child has its own). */
  close(): void;
}

/** A mount source that is not the object the call validated any more; the call fails with it. */
export class MountSourceError extends MangoError {
  constructor(
    readonly source: string,
    readonly reason: string,
  ) {
    super(
      'mount_source_changed',
      `A directory this call mounts changed while its sandbox was built: ${source} ${reason}. Nothing was mounted in its place and the command did not run.`,
    );
    this.name = 'MountSourceError';
  }
}

function reasonOf(code: string | undefined, error: unknown): string {
  if (code === 'ELOOP') return 'is a symbolic link or lies below one now';
  if (code === 'ENOENT') return 'does not exist';
  if (code === 'ENOTDIR') return 'is not a directory, or lies below something that is not one';
  return `cannot be opened (${errorMessage(error)})`;
}

/** Opens `mount`'s source as an object (see the module header); the caller owns the descriptor. */
function openSource(mount: Pick<HeldMount, 'source' | 'kind'>): number {
  if (mount.kind === 'directory') {
    const directory = HeldDirectory.open(mount.source);
    // The descriptor outlives the holder object: its number is handed on, so nothing may close it here.
    return directory.fd;
  }
  const parent = HeldDirectory.open(dirname(mount.source));
  try {
    return parent.openDescriptor(basename(mount.source), O_PATH);
  } finally {
    parent.close();
  }
}

function objectOf(fd: number): string {
  const stats = fstatSync(fd);
  return `${stats.dev}:${stats.ino}`;
}

/** The object at `path` itself (a final link described, none allowed above it), `device:inode`. */
function entryObjectOf(path: string): string {
  const parent = HeldDirectory.open(dirname(path));
  try {
    const stats = parent.statEntry(basename(path));
    return `${stats.dev}:${stats.ino}`;
  } finally {
    parent.close();
  }
}

/**
 * Opens every held mount of `plan` and returns bubblewrap's argument vector. Throws
 * {@link MountSourceError} when a source is not the validated object; nothing stays open then.
 */
export function openMountSources(plan: readonly PlanArgument[], firstDescriptor: number): OpenedMounts {
  const argv: string[] = [];
  const descriptors: number[] = [];
  const identities: MountIdentity[] = [];
  const close = () => {
    for (const fd of descriptors.splice(0)) closeDescriptor(fd);
  };
  try {
    for (const argument of plan) {
      if (typeof argument === 'string') {
        argv.push(argument);
        continue;
      }
      let fd: number;
      try {
        fd = openSource(argument);
      } catch (error) {
        const code = errorCodeOf(error);
        if (code === 'ENOENT' && !argument.required) {
          identities.push({
            source: argument.source,
            kind: argument.kind,
            object: 'missing',
            descriptor: -1,
          });
          continue;
        }
        throw new MountSourceError(argument.source, reasonOf(code, error));
      }
      descriptors.push(fd);
      const descriptor = firstDescriptor + descriptors.length - 1;
      const identity: MountIdentity = {
        source: argument.source,
        kind: argument.kind,
        object: objectOf(fd),
        descriptor,
      };
      if (argument.covers) {
        try {
          identity.covered = { path: argument.destination, object: entryObjectOf(argument.destination) };
        } catch (error) {
          throw new MountSourceError(argument.destination, reasonOf(errorCodeOf(error), error));
        }
      }
      identities.push(identity);
      argv.push(argument.readOnly ? '--ro-bind-fd' : '--bind-fd', String(descriptor), argument.destination);
    }
  } catch (error) {
    close();
    throw error;
  }
  return { argv, descriptors, identities, close };
}

/**
 * True when every source is still the object the sandbox was built with (and every left-out optional
 * source still missing), opened again now the same way.
 */
export function mountSourcesUnchanged(identities: readonly MountIdentity[]): boolean {
  return identities.every((identity) => {
    let fd: number;
    try {
      fd = openSource(identity);
    } catch (error) {
      return identity.object === 'missing' && errorCodeOf(error) === 'ENOENT';
    }
    try {
      if (objectOf(fd) !== identity.object) return false;
    } finally {
      closeDescriptor(fd);
    }
    if (!identity.covered) return true;
    try {
      return entryObjectOf(identity.covered.path) === identity.covered.object;
    } catch {
      return false;
    }
  });
}

/** bubblewrap's message with each `/proc/self/fd/N` of a held mount replaced by its source path. */
export function withMountSources(message: string, identities: readonly MountIdentity[]): string {
  return message.replace(/\/proc\/self\/fd\/(\d+)/g, (text, number: string) => {
    const identity = identities.find((candidate) => candidate.descriptor === Number(number));
    return identity ? identity.source : text;
  });
}
