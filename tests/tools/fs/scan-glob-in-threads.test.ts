/**
 * glob's walk on every core (scan-glob-in-threads.ts) gives what the walk alone gives: on a tree wide
 * enough that its subtrees go to the glob threads, every pattern kind, with dotfiles on and off, at
 * every cap around where the matches run out, with links the policy admits and refuses (the refused
 * ones counted alike), a subtree cut by the cap where a refused link lies (walked again in the
 * calling thread), and a start the policy does not admit whole (walked alone). No descriptor is left
 * open, whatever stopped the scan.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAccessPolicy } from '../../../src/tools/access/access-policy.ts';
import { computeReachableSet } from '../../../src/tools/access/reachable-set.ts';
import { createWalkEntryFilter } from '../../../src/tools/access/walk-entry-filter.ts';
import { type GlobScan, scanGlob } from '../../../src/tools/fs/scan-glob.ts';
import { globThreadWalks } from '../../../src/tools/fs/scan-glob-in-threads.ts';
import { userFileContext } from '../../../src/tools/user-file-context.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

const temp = makeTempDirectory('mango-glob-threads-');
const base = realpathSync(temp.path);
const ws = join(base, 'ws');
const outside = join(base, 'outside');
/** Top-level directories: more than the calling thread lists before it hands subtrees out. */
const WIDE = 40;

beforeAll(() => {
  mkdirSync(outside);
  writeFileSync(join(outside, 'o.c'), '');
  for (let index = 0; index < WIDE; index += 1) {
    const directory = join(ws, `d${String(index).padStart(2, '0')}`);
    for (const sub of ['s0', 's1', '.s2']) mkdirSync(join(directory, sub), { recursive: true });
    for (const file of ['f0.c', 'f1.h', '.dot.c', 's0/g.c', 's1/h.h', '.s2/i.c'])
      writeFileSync(join(directory, file), '');
  }
  mkdirSync(join(ws, 'd03', 's0', 'deep', 'deeper'), { recursive: true });
  writeFileSync(join(ws, 'd03', 's0', 'deep', 'deeper', 'x.c'), '');
  writeFileSync(join(ws, 'top.c'), '');
  // Links: to a directory and a file inside (admitted), outside (refused), dangling (refused).
  symlinkSync(join(ws, 'd01'), join(ws, 'd05', 'in-dir.c'));
  symlinkSync(join(ws, 'd01', 'f0.c'), join(ws, 'd05', 'in-file.c'));
  symlinkSync(join(outside, 'o.c'), join(ws, 'd07', 'out.c'));
  symlinkSync(join(ws, 'nothing'), join(ws, 'd09', 'dangling.c'));
  // The first subtree's first names include a refused link: a cap inside it walks it again here.
  symlinkSync(join(outside, 'o.c'), join(ws, 'd00', 'a-out.c'));
});
afterAll(() => temp.remove());

async function scanBoth(
  pattern: string,
  dot: boolean,
  maxResults: number,
  root = ws,
): Promise<{ alone: GlobScan & { refused: number }; threaded: GlobScan & { refused: number } }> {
  const reachable = computeReachableSet({
    workspaces: [{ path: ws, access: 'read-write', kind: 'personal' }],
    workingDirectory: ws,
    homeDirectory: ws,
    confined: true,
    protectedPaths: ['/proc', '/sys', '/dev'],
  });
  const policy = await getAccessPolicy(userFileContext('alice', reachable, Date.now));
  const scan = async (threads: boolean) => {
    const filter = createWalkEntryFilter(policy);
    const outcome = await scanGlob(
      {
        pattern,
        root,
        dot,
        maxResults,
        admits: (directory, name, kind) => filter.admitsEntry(directory, name, kind === 'link'),
      },
      threads ? globThreadWalks(policy, filter) : undefined,
    );
    return { ...outcome, refused: filter.refused };
  };
  return { alone: await scan(false), threaded: await scan(true) };
}

function expectSame({ alone, threaded }: Awaited<ReturnType<typeof scanBoth>>): void {
  expect(threaded.start).toBe(alone.start);
  expect(threaded.matches.paths()).toEqual(alone.matches.paths());
  expect(threaded.matches.count).toBe(alone.matches.count);
  expect(threaded.truncated).toBe(alone.truncated);
  expect(threaded.refused).toBe(alone.refused);
}

function openDescriptors(): number {
  return readdirSync('/proc/self/fd').length;
}

describe('the threaded walk gives what the walk alone gives', () => {
  for (const pattern of ['**', '**/*.c', '**/s0/*', 'd0*/**/*.h', '!**/*.c', '**/{f0,g}.c', '*/s1/**']) {
    for (const dot of [false, true]) {
      test(`${pattern}, dotfiles ${dot ? 'on' : 'off'}, uncapped`, async () => {
        const both = await scanBoth(pattern, dot, Number.MAX_SAFE_INTEGER);
        expect(both.alone.matches.count).toBeGreaterThan(0);
        expectSame(both);
      });
    }
  }

  test('every cap around where the matches run out, and small ones', async () => {
    const { alone } = await scanBoth('**/*.c', false, Number.MAX_SAFE_INTEGER);
    const all = alone.matches.count;
    // 40 × (f0.c, s0/g.c), top.c, the deep x.c, in-dir.c and in-file.c (out.c, dangling.c and a-out.c
    // refused).
    expect(all).toBe(84);
    for (const cap of [1, 2, 3, 4, 5, 17, all - 1, all, all + 1]) {
      const both = await scanBoth('**/*.c', false, cap);
      expect(both.alone.matches.count).toBe(Math.min(cap, all));
      expect(both.alone.truncated).toBe(cap < all);
      expectSame(both);
    }
  });

  test('links: admitted ones listed, refused ones left out and counted alike', async () => {
    const both = await scanBoth('**/*.c', false, Number.MAX_SAFE_INTEGER);
    const paths = both.threaded.matches.paths();
    expect(paths).toContain(join(ws, 'd05', 'in-dir.c'));
    expect(paths).toContain(join(ws, 'd05', 'in-file.c'));
    expect(paths).not.toContain(join(ws, 'd07', 'out.c'));
    expect(paths).not.toContain(join(ws, 'd09', 'dangling.c'));
    expect(paths).not.toContain(join(ws, 'd00', 'a-out.c'));
    expect(both.threaded.refused).toBe(3);
    expectSame(both);
  });

  test('a start the policy does not admit whole is walked alone, with the same outcome', async () => {
    // From the base, whose `outside` lies beyond the reachable set.
    const both = await scanBoth('**/*.c', false, Number.MAX_SAFE_INTEGER, base);
    expect(both.threaded.matches.paths()).not.toContain(join(outside, 'o.c'));
    expectSame(both);
  });
});

describe('descriptors', () => {
  test('none is left open after scans that ran out, were cut by the cap, or were stopped', async () => {
    await scanBoth('**', true, Number.MAX_SAFE_INTEGER);
    const before = openDescriptors();
    await scanBoth('**', true, Number.MAX_SAFE_INTEGER);
    await scanBoth('**', false, 3);
    await scanBoth('**/*.h', false, 50);
    const reachable = computeReachableSet({
      workspaces: [{ path: ws, access: 'read-write', kind: 'personal' }],
      workingDirectory: ws,
      homeDirectory: ws,
      confined: true,
      protectedPaths: [],
    });
    const policy = await getAccessPolicy(userFileContext('alice', reachable, Date.now));
    const controller = new AbortController();
    const stopped = scanGlob(
      { pattern: '**', root: ws, dot: true, maxResults: 1_000_000, signal: controller.signal },
      globThreadWalks(policy, createWalkEntryFilter(policy)),
    );
    controller.abort(new Error('stopped by the test'));
    await expect(stopped).rejects.toThrow('stopped by the test');
    expect(openDescriptors()).toBe(before);
  });
});
