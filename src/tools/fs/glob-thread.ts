/**
 * A glob thread: walks one subtree of a glob's start for the pattern and answers with its matches,
 * grouped (glob-match-list.ts), so a big tree is listed and matched on every core
 * (scan-glob-in-threads.ts). The subtree's directory is lent: the scan holds its descriptor, verified,
 * and closes it only after this thread answered; the walk below it goes through held directories with
 * links refused, as every walk does (walk-tree.ts).
 *
 * The thread decides nothing about the access policy: a scan hands it only a subtree whose every
 * descendant the policy admits, and a link's own location is then admitted too, so each link it meets
 * is sent back with the real location of its target for the scan to decide. A scan that stops early
 * sets the shared stop slot, which the walk reads every 1024 entries.
 */
import { HeldDirectory } from '../../descriptors/held-directory.ts';
import { entryLocation, linkTargetLocation } from '../access/walk-entry-filter.ts';
import { GlobMatchCollector } from './glob-match-list.ts';
import { collectGlobMatches, compileGlobWalk, type GlobWalk, type GlobWalkPattern } from './scan-glob.ts';

declare const self: Worker;

export interface GlobThreadJob {
  id: number;
  /** The subtree's directory: a descriptor of this process, and its real location. */
  fd: number;
  path: string;
  /** Its path below the glob's start. */
  base: string;
  pattern: GlobWalkPattern;
  /** Matches sent at most; the walk stops at one past them (truncated). */
  cap: number;
  /** Non-zero once the scan needs no more (shared with it). */
  stop: Int32Array;
}

/** A link the walk met: its real location, and its target's (undefined: dangling or looping). */
export interface GlobThreadLink {
  path: string;
  target: string | undefined;
}

export type GlobThreadReply =
  | {
      type: 'walked';
      id: number;
      /** The matches' tokens (glob-match-list.ts), NUL-separated. */
      text: string;
      count: number;
      truncated: boolean;
      /** Every link among the matches (and the one past the cap, when it was one), in walk order. */
      links: GlobThreadLink[];
    }
  | { type: 'failed'; id: number; message: string };

/** The last pattern's matchers: a scan's jobs all carry the same one. */
let compiled: { key: string; walk: GlobWalk } | undefined;

function walkOf(pattern: GlobWalkPattern): GlobWalk {
  const key = JSON.stringify(pattern);
  if (compiled?.key !== key) compiled = { key, walk: compileGlobWalk(pattern) };
  return compiled.walk;
}

self.onmessage = (event: MessageEvent<GlobThreadJob>) => {
  const job = event.data;
  let reply: GlobThreadReply;
  try {
    const links: GlobThreadLink[] = [];
    const collector = new GlobMatchCollector();
    const truncated = collectGlobMatches(
      {
        directory: HeldDirectory.lent(job.fd, job.path),
        base: job.base,
        walk: walkOf(job.pattern),
        cap: job.cap,
        aborted: () => Atomics.load(job.stop, 0) !== 0,
        admits: (directory, name, kind) => {
          if (kind === 'link') {
            links.push({
              path: entryLocation(directory.path, name),
              target: linkTargetLocation(directory, name),
            });
          }
          return true;
        },
      },
      collector,
    );
    reply = { type: 'walked', id: job.id, text: collector.text(), count: collector.count, truncated, links };
  } catch (error) {
    reply = { type: 'failed', id: job.id, message: error instanceof Error ? error.message : String(error) };
  }
  self.postMessage(reply);
};
