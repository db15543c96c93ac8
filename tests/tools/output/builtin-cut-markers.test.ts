/**
 * Every builtin tool that can cut its output says so in the one cut-marker format, with its own way to
 * get the rest. Which tools can cut is read from their sources: a builtin whose module (or the builtin
 * modules it builds on) imports the cut notices has cut cases here or is named with why it never cuts;
 * one that imports no notice cannot word a cut, so a new tool needs no entry.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createUnsandboxedShell } from '../../../src/sandbox/unsandboxed-shell.ts';
import { buildShellTool } from '../../../src/tools/builtin/build-shell-tool.ts';
import { executeTool } from '../../../src/tools/execution.ts';
import { CUT_MARKER_PATTERN } from '../../../src/tools/output/cut-marker.ts';
import { listTools, ToolRegistry } from '../../../src/tools/registry.ts';
import type { ShellKind } from '../../../src/tools/shell/shell-interpreter.ts';
import { createChat, expectFailure, expectOk } from '../../helpers/call-tool.ts';
import { makeReachableSet, makeTempDirectory } from '../../helpers/tool-context.ts';

const temp = makeTempDirectory('mango-cut-markers-');
const wd = join(temp.path, 'project');
beforeAll(() => {
  mkdirSync(join(wd, 'src'), { recursive: true });
  writeFileSync(
    join(wd, 'many.txt'),
    Array.from({ length: 2500 }, (_, index) => `line ${index + 1}`).join('\n'),
  );
  writeFileSync(join(wd, 'long.txt'), `needle ${'y'.repeat(3000)}\n`);
  for (const name of ['a', 'b', 'c']) writeFileSync(join(wd, 'src', `${name}.ts`), 'needle\nneedle\n');
});
afterAll(() => temp.remove());

const chat = (parameters?: Record<string, unknown>) =>
  createChat({ workingDirectory: wd, ...(parameters === undefined ? {} : { parameters }) });

/** The one marker at the end of `text`, which must say how to get the rest with `hint`. */
function expectMarker(text: unknown, hint: string): void {
  expect(typeof text).toBe('string');
  const marker = String(text).match(CUT_MARKER_PATTERN)?.[0];
  expect(marker).toBeDefined();
  expect(marker).toContain(hint);
}

// The shells run unsandboxed: the marker is the tool's, whichever sandbox ran the command.
const unsandboxed = createUnsandboxedShell({ log: () => {} });
const shellRegistry = new ToolRegistry();
for (const kind of ['bash', 'zsh'] as const)
  shellRegistry.register(buildShellTool(kind, { sandbox: () => unsandboxed }));
const runShell = (kind: ShellKind, command: string, parameters: Record<string, unknown>) =>
  executeTool(
    kind,
    { command },
    { userId: 'u', reachable: makeReachableSet({ workingDirectory: wd }) },
    { enabled: true, parameters },
    { registry: shellRegistry },
  );

const cutCases: Record<string, [string, () => Promise<void>][]> = {
  read_file: [
    [
      'a window stopped at the default maxLines',
      async () =>
        expectMarker(
          expectOk(await chat().call('read_file', { path: 'many.txt' })).content,
          'call read_file with startLine 2001',
        ),
    ],
    [
      'a line over 2000 characters',
      async () =>
        expectMarker(expectOk(await chat().call('read_file', { path: 'long.txt' })).content, 'view "hex"'),
    ],
  ],
  grep: [
    [
      'a matching line over 2000 characters',
      async () => {
        const result = expectOk(await chat().call('grep', { pattern: 'needle', path: 'long.txt' }));
        expectMarker((result.matches as { text: string }[])[0]?.text, 'read_file view "hex"');
      },
    ],
    [
      'maxResults',
      async () =>
        expectMarker(
          expectOk(await chat({ maxResults: 2 }).call('grep', { pattern: 'needle', path: 'src' })).notice,
          'narrow the pattern, the path or the glob',
        ),
    ],
    [
      'maxMatchesPerFile',
      async () =>
        expectMarker(
          expectOk(await chat({ maxMatchesPerFile: 1 }).call('grep', { pattern: 'needle', path: 'src' }))
            .notice,
          'search a single file with a narrower pattern',
        ),
    ],
  ],
  glob: [
    [
      'maxResults',
      async () =>
        expectMarker(
          expectOk(await chat({ maxResults: 1 }).call('glob', { pattern: 'src/*.ts' })).notice,
          'narrow the pattern or the cwd',
        ),
    ],
  ],
};
for (const kind of ['bash', 'zsh'] as const) {
  cutCases[kind] = [
    [
      'a stream over maxOutputBytes',
      async () => {
        const result = expectOk(
          await runShell(kind, 'head -c 5000 /dev/zero | tr "\\0" o', { maxOutputBytes: 1024 }),
        );
        expect([result.stdout, result.truncated]).toEqual(['o'.repeat(1024), true]);
        expectMarker(result.notice, 'redirect it to a file and read that with read_file');
      },
    ],
  ];
}
// The timeout takes its 5 s minimum; the excerpt is the same builder's code for every shell.
cutCases.bash?.push([
  "the output quoted in a timeout's error",
  async () => {
    const error = expectFailure(
      await runShell('bash', 'head -c 3000 /dev/zero | tr "\\0" o; sleep 60', { timeoutSeconds: 5 }),
    );
    expect(error.classification).toBe('timeout');
    expectMarker(error.message, 'make the command finish sooner');
  },
]);

/** Builtins that import the cut notices yet never cut their own output, and why. */
const neverCut: Record<string, string> = {
  list_directory: 'lists one directory whole (what the path policy refuses is counted, not cut)',
  powershell: 'is built by the same shell tool builder as bash and zsh, tested above',
};

const BUILTIN_FOLDER = join(import.meta.dir, '..', '..', '..', 'src', 'tools', 'builtin');

/** Whether the builtin module `file`, or a builtin module it imports, imports the cut notices. */
function wordsCuts(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const source = readFileSync(join(BUILTIN_FOLDER, file), 'utf8');
  const imported = [...source.matchAll(/from '([^']+)'|import '([^']+)'/g)].map(
    (match) => match[1] ?? match[2],
  );
  return imported.some(
    (specifier) =>
      specifier === '../output/cut-notices.ts' ||
      (specifier?.startsWith('./') === true && wordsCuts(specifier.slice(2), seen)),
  );
}

/** A builtin's module: its name in kebab-case. */
const moduleOf = (name: string) => `${name.replaceAll('_', '-')}.ts`;

test('the source reading sees the notices where they are imported, and only there', () => {
  expect(wordsCuts('read-file.ts')).toBe(true);
  expect(wordsCuts('bash.ts')).toBe(true); // through build-shell-tool.ts
  expect(wordsCuts('write-file.ts')).toBe(false);
  expect(wordsCuts('get-current-datetime.ts')).toBe(false);
});

test('every registered builtin that can word a cut has cut cases here or is named as never cutting', () => {
  const names = [...listTools().map((tool) => tool.definition.name), 'powershell'];
  expect(names).toContain('bash');
  for (const name of new Set(names)) {
    expect({ name, module: existsSync(join(BUILTIN_FOLDER, moduleOf(name))) }).toEqual({
      name,
      module: true,
    });
    const covered = !wordsCuts(moduleOf(name)) || name in cutCases || name in neverCut;
    expect({ name, covered }).toEqual({ name, covered: true });
  }
});

for (const [tool, cases] of Object.entries(cutCases)) {
  describe(tool, () => {
    for (const [label, run] of cases) test(label, run, 20_000);
  });
}
