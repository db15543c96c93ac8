/**
 * Whether a stdio MCP server's program can start in the sandbox that will run it, decided before it is
 * started: a program that cannot start otherwise shows only as the SDK's "Connection closed", which
 * says neither what is wrong nor what to change.
 *
 * - The command is looked up on the `PATH` the program itself gets (the sandbox's environment, or the
 *   server's own PATH variable), never on the Mango process's own: so the server, an embedding and the
 *   CLI (`mango mcp-servers list --user`) all start the same program, or all refuse it.
 * - It must be a regular, executable file; its path and its real path must lie in what the sandbox
 *   shows (its system directories, the `packageDirectory`, the reachable set, the state directory).
 * - A script's `#!` interpreter must pass the same checks; for `#!/usr/bin/env NAME`, NAME is looked
 *   up on the same `PATH`, among the directories the sandbox shows, as `env` will inside.
 *
 * Each refusal is an `execution_error` that names the cause and the fix.
 */
import { constants } from 'node:fs';
import { access, open, realpath, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { isPathInside } from '../tools/access/reachable-set.ts';
import { ToolError } from '../tools/errors.ts';

export interface StdioProgramCheck {
  /** The server's name, for messages. */
  server: string;
  /** The declared command: an absolute path or a name looked up on `searchPath`. */
  command: string;
  /** The `PATH` the program gets. */
  searchPath: string;
  /** The host's system directories the sandbox shows; undefined when it shows the whole host. */
  systemDirectories: readonly string[] | undefined;
  /** The server's `packageDirectory`, when it has one (mounted read-only). */
  packageDirectory: string | undefined;
  /** Every other directory the sandbox mounts for it (the reachable set, the state directory). */
  roots: readonly string[];
}

/** How much of a file is read to find its `#!` line. */
const SHEBANG_BYTES = 256;

type FileProblem = 'missing' | 'not-file' | 'not-executable' | undefined;

async function fileProblem(path: string): Promise<FileProblem> {
  let stats: Awaited<ReturnType<typeof stat>>;
  try {
    stats = await stat(path);
  } catch {
    return 'missing';
  }
  if (!stats.isFile()) return 'not-file';
  // Root passes `access(X_OK)` for any execute bit; the sandbox uid needs one as well.
  if ((stats.mode & 0o111) === 0) return 'not-executable';
  try {
    await access(path, constants.X_OK);
  } catch {
    return 'not-executable';
  }
  return undefined;
}

async function realPathOf(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}

/** The `#!` line's interpreter and its arguments, or undefined for a binary or a script without one. */
async function readShebang(path: string): Promise<string[] | undefined> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(SHEBANG_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SHEBANG_BYTES, 0);
    const head = buffer.subarray(0, bytesRead).toString('latin1');
    if (!head.startsWith('#!')) return undefined;
    const end = head.indexOf('\n');
    const words = head
      .slice(2, end === -1 ? undefined : end)
      .trim()
      .split(/[ \t]+/)
      .filter((word) => word !== '');
    return words.length === 0 ? undefined : words;
  } finally {
    await handle.close();
  }
}

/** The name `env` runs: its first argument that is not an option (`-S` splits the rest). */
function envTarget(words: readonly string[]): string | undefined {
  const rest = words.slice(1).flatMap((word) => word.split(/[ \t]+/));
  return rest.find((word) => !word.startsWith('-') && !word.includes('='));
}

class ProgramChecker {
  readonly #check: StdioProgramCheck;
  #shown: string[] | undefined;

  constructor(check: StdioProgramCheck) {
    this.#check = check;
  }

  #fail(reason: string): never {
    throw new ToolError('execution_error', `The MCP server "${this.#check.server}" cannot start: ${reason}`);
  }

  /** Each shown directory at its own path and at its real path. */
  async #shownDirectories(): Promise<string[] | undefined> {
    const { systemDirectories, packageDirectory, roots } = this.#check;
    if (systemDirectories === undefined) return undefined;
    if (this.#shown) return this.#shown;
    const declared = [
      ...systemDirectories,
      ...(packageDirectory === undefined ? [] : [packageDirectory]),
      ...roots,
    ];
    const real = await Promise.all(declared.map(realPathOf));
    this.#shown = [...declared, ...real.filter((path): path is string => path !== undefined)];
    return this.#shown;
  }

  async #isShown(path: string): Promise<boolean> {
    const shown = await this.#shownDirectories();
    if (shown === undefined) return true;
    const real = (await realPathOf(path)) ?? path;
    const inside = (candidate: string) => shown.some((directory) => isPathInside(candidate, directory));
    return inside(path) && inside(real);
  }

  #outside(what: string, path: string, real: string | undefined): never {
    const { systemDirectories, packageDirectory } = this.#check;
    const resolved = real !== undefined && real !== path ? ` (really ${real})` : '';
    const visible = [
      ...(systemDirectories ?? []),
      packageDirectory === undefined ? 'no packageDirectory' : `the packageDirectory ${packageDirectory}`,
      "and the chat's reachable set",
    ].join(', ');
    this.#fail(
      `${what} ${path}${resolved} lies outside every directory the sandbox shows (${visible}); set packageDirectory to a directory holding it, or install it under /usr.`,
    );
  }

  /** Checks `path` exists, is an executable file and is shown; `what` names it in messages. */
  async #checkFile(what: string, path: string): Promise<void> {
    const problem = await fileProblem(path);
    if (problem === 'missing') this.#fail(`${what} ${path} does not exist.`);
    if (problem === 'not-file') this.#fail(`${what} ${path} is not a regular file.`);
    if (problem === 'not-executable')
      this.#fail(`${what} ${path} is not executable: make it so (chmod +x ${path}).`);
    if (!(await this.#isShown(path))) this.#outside(what, path, await realPathOf(path));
  }

  /** Where `name` is found on the program's PATH: the first shown hit, else the first hidden one. */
  async #lookUp(name: string): Promise<{ shown?: string; hidden?: string }> {
    let hidden: string | undefined;
    for (const directory of this.#check.searchPath.split(delimiter)) {
      if (!isAbsolute(directory)) continue;
      const candidate = join(directory, name);
      if ((await fileProblem(candidate)) !== undefined) continue;
      if (await this.#isShown(candidate)) return { shown: candidate };
      hidden ??= candidate;
    }
    return { hidden };
  }

  #notOnPath(what: string, name: string): never {
    this.#fail(
      `${what} "${name}" is not on the PATH it gets (${this.#check.searchPath || 'empty'}): install it in one of those directories, give its absolute path, or set PATH in its env.`,
    );
  }

  async run(): Promise<string> {
    const { command } = this.#check;
    let program: string;
    if (isAbsolute(command)) {
      program = command;
    } else {
      const found = await this.#lookUp(command);
      if (found.shown === undefined && found.hidden !== undefined)
        this.#outside(`its command "${command}", found at`, found.hidden, await realPathOf(found.hidden));
      if (found.shown === undefined) this.#notOnPath('its command', command);
      program = found.shown;
    }
    await this.#checkFile('its command', program);
    const shebang = await readShebang(program);
    if (shebang === undefined) return program;
    const [interpreter = ''] = shebang;
    const what = `the interpreter of ${program} (its #! line)`;
    if (!isAbsolute(interpreter)) this.#fail(`${what} "${interpreter}" is not an absolute path.`);
    await this.#checkFile(what, interpreter);
    const target = interpreter.endsWith('/env') ? envTarget(shebang) : undefined;
    if (target !== undefined && !target.includes('/')) {
      const found = await this.#lookUp(target);
      const envWhat = `the interpreter of ${program} (#!${shebang.join(' ')})`;
      if (found.shown === undefined && found.hidden !== undefined)
        this.#outside(`${envWhat}, found at`, found.hidden, await realPathOf(found.hidden));
      if (found.shown === undefined) this.#notOnPath(envWhat, target);
    }
    return program;
  }
}

/**
 * The absolute path to start the program by, once it is known to be able to start there.
 * @throws ToolError `execution_error` naming the cause and the fix.
 */
export function checkStdioProgram(check: StdioProgramCheck): Promise<string> {
  return new ProgramChecker(check).run();
}
