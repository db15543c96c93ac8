/**
 * The stdio MCP servers' state directories in the workspaces directory: `.mcp-state` and `<user>` made
 * 0711 (exactly, whatever the umask), `<server>` 0700 and given to the sandbox uid, links refused; and
 * the state an older version kept in the data directory moved at first use, once, never over a newer
 * one, and left in place with one line when it lies on another filesystem.
 */

import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  formerMcpStateDirectoryIn,
  type McpStateLocation,
  mcpStateDirectoryIn,
  userStateDirectory,
} from '../../src/mcp-client/mcp-state-directory.ts';
import { sandboxFileOwner } from '../../src/sandbox/sandbox-file-owner.ts';
import type { ShellSandbox } from '../../src/sandbox/shell-sandbox.ts';
import { createUnsandboxedShell } from '../../src/sandbox/unsandboxed-shell.ts';

/** Hands files over as a root server's sandbox does: each user's to their own uid. */
const SANDBOX: ShellSandbox = {
  ...createUnsandboxedShell(),
  fileOwner: async (userId) =>
    process.getuid?.() === 0
      ? { uid: userId === 'alice' ? 1_900_000_001 : 1_900_000_002, gid: 1_900_000_001 }
      : undefined,
};

let base: string;
let workspaces: string;
let data: string;
let lines: string[];
let location: McpStateLocation;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'mango-mcp-state-')));
  workspaces = join(base, 'workspaces');
  data = join(base, 'data');
  mkdirSync(workspaces, { mode: 0o711 });
  mkdirSync(data, { mode: 0o700 });
  lines = [];
  location = {
    stateDirectory: mcpStateDirectoryIn(workspaces),
    formerStateDirectory: formerMcpStateDirectoryIn(data),
    log: (line) => lines.push(line),
  };
});
afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

function modeOf(path: string): string {
  return (statSync(path).mode & 0o7777).toString(8);
}

/** An older version's state: `<data>/mcp-state/<user>/<server>/<file>` holding `text`. */
function plantFormerState(user: string, server: string, file: string, text: string): string {
  const directory = join(data, 'mcp-state', user, server);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  writeFileSync(join(directory, file), text);
  return directory;
}

describe('userStateDirectory', () => {
  test('makes .mcp-state and the user’s directory 0711 under umask 077, the server’s 0700 and the sandbox uid’s', async () => {
    const previous = process.umask(0o077);
    let path: string;
    try {
      path = await userStateDirectory(location, 'alice', 'memory', SANDBOX);
    } finally {
      process.umask(previous);
    }
    const states = join(workspaces, '.mcp-state');
    expect(path).toBe(join(states, 'alice', 'memory'));
    expect([states, join(states, 'alice'), path].map(modeOf)).toEqual(['711', '711', '700']);
    const owner = (await sandboxFileOwner('alice', SANDBOX)) ?? {
      uid: process.getuid?.() ?? -1,
      gid: process.getgid?.() ?? -1,
    };
    expect({ uid: statSync(path).uid, gid: statSync(path).gid }).toEqual(owner);
    expect(statSync(states).uid).toBe(process.getuid?.() ?? -1);
    expect(readdirSync(data)).toEqual([]);
  });

  test('an existing directory keeps its mode and contents; a second call returns the same path', async () => {
    const first = await userStateDirectory(location, 'alice', 'memory', SANDBOX);
    writeFileSync(join(first, 'memory.jsonl'), 'kept');
    const states = join(workspaces, '.mcp-state');
    // A mode the operator chose (a group of sandbox uids, say) is not put back to 0711.
    Bun.spawnSync(['chmod', '0710', states]);
    expect(await userStateDirectory(location, 'alice', 'memory', SANDBOX)).toBe(first);
    expect(readFileSync(join(first, 'memory.jsonl'), 'utf8')).toBe('kept');
    expect(modeOf(states)).toBe('710');
  });

  test('a link at .mcp-state or at the user’s directory is refused, and nothing is made through it', async () => {
    const elsewhere = join(base, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(workspaces, '.mcp-state'));
    await expect(userStateDirectory(location, 'alice', 'memory', SANDBOX)).rejects.toMatchObject({
      code: 'ELOOP',
    });
    rmSync(join(workspaces, '.mcp-state'));
    mkdirSync(join(workspaces, '.mcp-state'));
    symlinkSync(elsewhere, join(workspaces, '.mcp-state', 'alice'));
    await expect(userStateDirectory(location, 'alice', 'memory', SANDBOX)).rejects.toMatchObject({
      code: 'ELOOP',
    });
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});

describe('state an older version kept in the data directory', () => {
  test('is moved at first use, the same directory (inode, mode), its emptied parents removed', async () => {
    const alice = plantFormerState('alice', 'memory', 'memory.jsonl', 'alice-graph');
    plantFormerState('bob', 'memory', 'memory.jsonl', 'bob-graph');
    const inode = statSync(alice).ino;
    const moved = await userStateDirectory(location, 'alice', 'memory', SANDBOX);
    expect(readFileSync(join(moved, 'memory.jsonl'), 'utf8')).toBe('alice-graph');
    expect({ inode: statSync(moved).ino, mode: modeOf(moved) }).toEqual({ inode, mode: '700' });
    expect(readdirSync(join(data, 'mcp-state'))).toEqual(['bob']);
    await userStateDirectory(location, 'bob', 'memory', SANDBOX);
    expect(readdirSync(data)).toEqual([]);
    expect(lines).toEqual([]);
  });

  test('only the server asked for moves; the user’s other servers wait for their own first use', async () => {
    plantFormerState('alice', 'memory', 'memory.jsonl', 'graph');
    plantFormerState('alice', 'probe', 'written.txt', 'probe-state');
    await userStateDirectory(location, 'alice', 'memory', SANDBOX);
    expect(readdirSync(join(data, 'mcp-state', 'alice'))).toEqual(['probe']);
    const probe = await userStateDirectory(location, 'alice', 'probe', SANDBOX);
    expect(readFileSync(join(probe, 'written.txt'), 'utf8')).toBe('probe-state');
    expect(existsSync(join(data, 'mcp-state'))).toBe(false);
  });

  test('is left alone when the new place already has a directory for it', async () => {
    const newer = await userStateDirectory(location, 'alice', 'memory', SANDBOX);
    writeFileSync(join(newer, 'memory.jsonl'), 'newer');
    const older = plantFormerState('alice', 'memory', 'memory.jsonl', 'older');
    expect(await userStateDirectory(location, 'alice', 'memory', SANDBOX)).toBe(newer);
    expect(readFileSync(join(newer, 'memory.jsonl'), 'utf8')).toBe('newer');
    expect(readFileSync(join(older, 'memory.jsonl'), 'utf8')).toBe('older');
  });

  test('two first uses at once: it is moved once, and both get it', async () => {
    plantFormerState('alice', 'memory', 'memory.jsonl', 'graph');
    const paths = await Promise.all([
      userStateDirectory(location, 'alice', 'memory', SANDBOX),
      userStateDirectory(location, 'alice', 'memory', SANDBOX),
    ]);
    expect(paths[0]).toBe(paths[1]);
    expect(readFileSync(join(paths[0] ?? '', 'memory.jsonl'), 'utf8')).toBe('graph');
    expect(existsSync(join(data, 'mcp-state'))).toBe(false);
  });

  test('no data directory, or no state in it: a new empty directory, no line', async () => {
    const absent = { ...location, formerStateDirectory: formerMcpStateDirectoryIn(join(base, 'no-data')) };
    const path = await userStateDirectory(absent, 'alice', 'memory', SANDBOX);
    expect(readdirSync(path)).toEqual([]);
    expect(readdirSync(await userStateDirectory(location, 'bob', 'memory', SANDBOX))).toEqual([]);
    expect(lines).toEqual([]);
  });

  const otherFilesystem = '/dev/shm';
  const separate = existsSync(otherFilesystem) && statSync(otherFilesystem).dev !== statSync(tmpdir()).dev;
  test.skipIf(!separate)(
    '(a second filesystem: /dev/shm) on another filesystem it stays, with one line naming both places',
    async () => {
      const otherData = realpathSync(mkdtempSync(join(otherFilesystem, 'mango-mcp-state-data-')));
      try {
        const older = join(otherData, 'mcp-state', 'alice', 'memory');
        mkdirSync(older, { recursive: true });
        writeFileSync(join(older, 'memory.jsonl'), 'graph');
        const across = { ...location, formerStateDirectory: formerMcpStateDirectoryIn(otherData) };
        const path = await userStateDirectory(across, 'alice', 'memory', SANDBOX);
        expect(readdirSync(path)).toEqual([]);
        expect(readFileSync(join(older, 'memory.jsonl'), 'utf8')).toBe('graph');
        expect(lines).toEqual([
          `The state of the MCP server "memory" for alice stays at ${older}: it lies on another filesystem than ${path}, where the server keeps it now and starts with an empty one; move its contents there to keep them.`,
        ]);
        await userStateDirectory(across, 'alice', 'memory', SANDBOX);
        expect(lines).toHaveLength(1);
      } finally {
        rmSync(otherData, { recursive: true, force: true });
      }
    },
  );
});
