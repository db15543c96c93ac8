/**
 * The program check on its own, with its directories given: a sandbox that shows the whole host (no
 * containment) still refuses a program or interpreter that cannot run, and finds the command on the
 * PATH it is given.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkStdioProgram, type StdioProgramCheck } from '../../src/mcp-client/stdio-program-check.ts';

describe('checkStdioProgram', () => {
  let directory: string;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'mango-program-check-'));
    writeFileSync(join(directory, 'server'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    writeFileSync(join(directory, 'lost-interpreter'), `#!${directory}/gone -x\n`, { mode: 0o755 });
    chmodSync(join(directory, 'server'), 0o755);
    chmodSync(join(directory, 'lost-interpreter'), 0o755);
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  const check = (command: string, extra: Partial<StdioProgramCheck> = {}): StdioProgramCheck => ({
    server: 'local',
    command,
    searchPath: `/usr/bin:${directory}`,
    systemDirectories: undefined,
    packageDirectory: undefined,
    roots: [],
    ...extra,
  });

  test('without containment a command is found on the PATH given, wherever it lies', async () => {
    expect(await checkStdioProgram(check('server'))).toBe(join(directory, 'server'));
  });

  test('with containment the same command outside what is shown is refused', async () => {
    await expect(checkStdioProgram(check('server', { systemDirectories: ['/usr', '/bin'] }))).rejects.toThrow(
      `The MCP server "local" cannot start: its command "server", found at ${directory}/server lies outside every directory the sandbox shows (/usr, /bin, no packageDirectory, and the chat's reachable set); set packageDirectory to a directory holding it, or install it under /usr.`,
    );
    expect(
      await checkStdioProgram(
        check('server', { systemDirectories: ['/usr', '/bin'], packageDirectory: directory }),
      ),
    ).toBe(join(directory, 'server'));
  });

  test('a script whose interpreter does not exist', async () => {
    await expect(checkStdioProgram(check(join(directory, 'lost-interpreter')))).rejects.toThrow(
      `The MCP server "local" cannot start: the interpreter of ${directory}/lost-interpreter (its #! line) ${directory}/gone does not exist.`,
    );
  });
});
