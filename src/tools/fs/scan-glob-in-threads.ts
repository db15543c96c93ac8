/**
 * A glob scan whose walk runs on every core: the calling thread lists the first levels below the start
 * itself, breadth first, until the subtrees left are enough to share out, and glob threads
 * (glob-thread.ts) walk those subtrees, each from a directory the calling thread opened (held, links
 * refused) and lends them. The matches are put together in walk order, so the outcome is the one
 * `scanGlob` would give walking alone: the same matches, the same cut at `maxResults`, the same
 * `truncated`.
 *
 * Only a start whose every descendant the call's policy admits is walked this way (otherwise this
 * declines and `scanGlob` walks alone): then no protected path lies below it and every entry that is
 * no link is admitted as listed, so the threads need no policy; each link they meet comes back with
 * its target's real location and is decided here by the call's walk entry filter. Only a confined
 * file worker uses it (glob-files.ts): its threads are kept between calls, as grep's are there.
 *
 * A descriptor is closed only once no thread can be using it: a stopped scan (cap reached, signal)
 * tells its threads through a shared slot and waits for the answers of the walks in flight.
 */
import type { HeldDirectory } from '../../descriptors/held-directory.ts';
import type { AccessPolicy } from '../access/access-policy.ts';
import type { WalkEntryFilter } from '../access/walk-entry-filter.ts';
import { forEachGlobMatch, GlobMatchCollector, GlobMatchList } from './glob-match-list.ts';
import type { GlobThreadJob, GlobThreadReply } from './glob-thread.ts';
import {
  collectGlobMatches,
  compileGlobWalk,
  type GlobScan,
  type GlobScanOptions,
  type GlobScanStart,
  type GlobWalk,
  globListingOptions,
} from './scan-glob.ts';
import { type ReferencedWorker, searchThreadCount, threadProgramUrl } from './thread-program.ts';
import { listForWalk } from './walk-tree.ts';

/** The thread's program: beside this module in the sources, and beside the file worker's bundle. */
export const GLOB_THREAD_BUNDLE_NAME = 'glob-thread.js';

/** Subtrees wanted before the threads take over: enough that one big subtree does not leave a core idle. */
const SUBTREES_WANTED = 16;
/** Directories the calling thread lists at most before handing over what is left. */
const LISTED_HERE_AT_MOST = 64;
/** Walks sent to one thread at a time: one in hand, one waiting. */
const WALKS_PER_THREAD = 2;

interface GlobThread {
  worker: ReferencedWorker;
  walks: Map<number, (reply: GlobThreadReply) => void>;
}

/** The threads, started at the first scan that needs them and kept. */
const threads: GlobThread[] = [];
let nextJobId = 0;

function startThread(): GlobThread {
  const thread: GlobThread = {
    worker: new Worker(
      threadProgramUrl(import.meta.url, 'glob-thread.ts', GLOB_THREAD_BUNDLE_NAME),
    ) as ReferencedWorker,
    walks: new Map(),
  };
  thread.worker.onmessage = (event: MessageEvent<GlobThreadReply>) => {
    const settle = thread.walks.get(event.data.id);
    thread.walks.delete(event.data.id);
    if (thread.walks.size === 0) thread.worker.unref();
    settle?.(event.data);
  };
  // A thread that fails outside a walk's own error handling is not used again; its walks fail.
  thread.worker.onerror = (event) => {
    const index = threads.indexOf(thread);
    if (index !== -1) threads.splice(index, 1);
    thread.worker.terminate();
    for (const [id, settle] of thread.walks) settle({ type: 'failed', id, message: event.message });
    thread.walks.clear();
  };
  return thread;
}

function threadPool(): GlobThread[] {
  const size = searchThreadCount();
  while (threads.length < size) threads.push(startThread());
  return threads;
}

/** A subtree left to walk: the directory holding it, and its name there. */
interface Subtree {
  parent: Parent;
  name: string;
  /** Its path below the start. */
  base: string;
  /** Its turn to be opened came (it holds its parent no more). */
  taken?: boolean;
  /** Set once it is opened and sent to a thread. */
  walk?: { directory: HeldDirectory; reply: Promise<GlobThreadReply> };
}

/** A listed directory some subtrees are still to be opened in; closed after the last of them. */
interface Parent {
  directory: HeldDirectory;
  left: number;
  /** False for the start's own directory, which the caller closes. */
  owned: boolean;
}

/** Matches listed here, or a subtree a thread walks. */
type Piece = { text: string; count: number } | Subtree;

function isSubtree(piece: Piece): piece is Subtree {
  return 'parent' in piece;
}

function release(parent: Parent): void {
  parent.left -= 1;
  if (parent.left === 0 && parent.owned) parent.directory.close();
}

/** Opens a subtree's directory in its parent, links refused; undefined when it cannot be entered. */
function openSubtree(subtree: Subtree): HeldDirectory | undefined {
  subtree.taken = true;
  try {
    return subtree.parent.directory.openDirectory(subtree.name, 'refuse');
  } catch {
    return undefined; // swapped for a link, replaced by a file or gone since the listing: not entered
  } finally {
    release(subtree.parent);
  }
}

/** What a piece adds to the outcome, cut at the room left: its tokens, their count, and whether more. */
interface Added {
  text: string;
  count: number;
  more: boolean;
}

/**
 * The part of `text` (`count` matches) that fits in `room`, its links (path to target) decided by
 * `filter` in walk order as a walk alone would decide them: up to the first admitted match past the
 * room, which makes `more`.
 */
function fitted(
  start: string,
  text: string,
  count: number,
  room: number,
  links: Map<string, string | undefined>,
  filter: WalkEntryFilter,
): Added {
  if (count <= room && links.size === 0) return { text, count, more: false };
  const kept = new GlobMatchCollector();
  let more = false;
  forEachGlobMatch(start, text, (directory, name, path) => {
    if (more) return;
    if (links.has(path) && !filter.admitsLinkTo(links.get(path))) return;
    if (kept.count === room) more = true;
    else kept.add(directory, name);
  });
  return { text: kept.text(), count: kept.count, more };
}

/**
 * The `walks` of `scanGlob` (scan-glob.ts) for a call with `policy` and `filter`: a scan of a start
 * whose every descendant `policy` admits, in glob threads; undefined (walk here) for any other start.
 */
export function globThreadWalks(
  policy: AccessPolicy,
  filter: WalkEntryFilter,
): (start: GlobScanStart, options: GlobScanOptions) => Promise<GlobScan | undefined> {
  return async (start, options) => {
    if (!policy.admitsEveryDescendant(start.held.path)) return undefined;
    return scanInThreads(start, options, filter);
  };
}

async function scanInThreads(
  start: GlobScanStart,
  options: GlobScanOptions,
  filter: WalkEntryFilter,
): Promise<GlobScan> {
  const { held } = start;
  const walk = compileGlobWalk(start.pattern);
  const listingOptions = globListingOptions(walk);
  const root: Subtree = {
    parent: { directory: held, left: 1, owned: false },
    name: '',
    base: '',
    taken: true,
  };
  const pieces: Piece[] = [root];
  const stop = new Int32Array(new SharedArrayBuffer(4));
  try {
    // Breadth first, the start's first levels here: each listed subtree becomes its own matches and
    // the subtrees below it, in walk order.
    const unlisted: Subtree[] = [root];
    let listed = 0;
    while (unlisted.length > 0 && unlisted.length < SUBTREES_WANTED && listed < LISTED_HERE_AT_MOST) {
      if (options.signal?.aborted) throw options.signal.reason;
      const subtree = unlisted.shift() as Subtree;
      const directory = subtree === root ? held : openSubtree(subtree);
      const below: Piece[] = [];
      if (directory !== undefined) {
        listed += 1;
        const parent: Parent = { directory, left: 1, owned: subtree !== root };
        try {
          const collector = new GlobMatchCollector();
          const listing = listForWalk(directory, subtree.base, listingOptions);
          for (const name of listing.names) {
            if (filter.admitsEntry(directory, name, listing.kinds.get(name) === 'link'))
              collector.add(subtree.base, name);
          }
          for (const name of listing.subdirectories) {
            const base = subtree.base === '' ? name : `${subtree.base}/${name}`;
            if (!listingOptions.descends?.(base, name, directory)) continue;
            parent.left += 1;
            below.push({ parent, name, base });
          }
          below.unshift({ text: collector.text(), count: collector.count });
        } finally {
          release(parent);
        }
      }
      pieces.splice(pieces.indexOf(subtree), 1, ...below);
      unlisted.push(...below.filter(isSubtree));
    }
    return await gather(start, walk, pieces, options, filter, stop);
  } finally {
    Atomics.store(stop, 0, 1);
    // A directory lent to a thread is closed only after its walk answered; those never sent close now.
    const subtrees = pieces.filter(isSubtree);
    await Promise.all(subtrees.map((subtree) => subtree.walk?.reply));
    for (const subtree of subtrees) {
      subtree.walk?.directory.close();
      if (subtree.taken !== true) release(subtree.parent);
    }
  }
}

/** Sends the subtrees to the threads, and puts their matches and the pieces listed here together. */
async function gather(
  start: GlobScanStart,
  walk: GlobWalk,
  pieces: Piece[],
  options: GlobScanOptions,
  filter: WalkEntryFilter,
  stop: Int32Array,
): Promise<GlobScan> {
  const real = start.held.path;
  const subtrees = pieces.filter(isSubtree);
  const pool = subtrees.length === 0 ? [] : threadPool();
  let next = 0;
  const send = () => {
    if (Atomics.load(stop, 0) !== 0) return;
    for (const thread of pool) {
      while (thread.walks.size < WALKS_PER_THREAD && next < subtrees.length) {
        const subtree = subtrees[next++] as Subtree;
        const directory = openSubtree(subtree);
        if (directory === undefined) continue;
        const id = nextJobId++;
        const job: GlobThreadJob = {
          id,
          fd: directory.fd,
          path: directory.path,
          base: subtree.base,
          pattern: start.pattern,
          cap: options.maxResults,
          stop,
        };
        const reply = new Promise<GlobThreadReply>((resolve) => thread.walks.set(id, resolve));
        subtree.walk = { directory, reply };
        thread.worker.ref();
        thread.worker.postMessage(job);
        void reply.then(send);
      }
    }
  };
  send();
  const parts: string[] = [];
  let total = 0;
  let truncated = false;
  for (const piece of pieces) {
    const room = options.maxResults - total;
    const added = isSubtree(piece)
      ? await walked(start, walk, piece, options, filter, room)
      : fitted(real, piece.text, piece.count, room, new Map(), filter);
    if (options.signal?.aborted) throw options.signal.reason;
    if (added.count > 0) parts.push(added.text);
    total += added.count;
    if (added.more) {
      truncated = true;
      break;
    }
  }
  return { start: real, matches: new GlobMatchList(real, parts, total), truncated };
}

/** A subtree's matches once its thread answered, cut at `room`. */
async function walked(
  start: GlobScanStart,
  walk: GlobWalk,
  subtree: Subtree,
  options: GlobScanOptions,
  filter: WalkEntryFilter,
  room: number,
): Promise<Added> {
  // Never sent: it could not be opened, so it is not entered.
  if (subtree.walk === undefined) return { text: '', count: 0, more: false };
  const reply = await subtree.walk.reply;
  if (reply.type === 'failed') throw new Error(`a glob thread failed: ${reply.message}`);
  if (reply.truncated && reply.links.length > 0) {
    // Links the policy refuses may leave fewer than the thread's cap, and what lies past its cap is
    // unknown: this subtree is walked again here, as a walk alone would walk it.
    const collector = new GlobMatchCollector();
    const more = collectGlobMatches(
      {
        directory: subtree.walk.directory,
        base: subtree.base,
        walk,
        cap: room,
        aborted: () => options.signal?.aborted === true,
        admits: (directory, name, kind) => filter.admitsEntry(directory, name, kind === 'link'),
      },
      collector,
    );
    return { text: collector.text(), count: collector.count, more };
  }
  const links = new Map(reply.links.map((link) => [link.path, link.target]));
  const added = fitted(start.held.path, reply.text, reply.count, room, links, filter);
  return { ...added, more: added.more || reply.truncated };
}
