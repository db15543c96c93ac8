import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileGrepPattern } from '../../../../src/tools/fs/grep/compile-grep-pattern.ts';
import { runGrepSearch } from '../../../../src/tools/fs/grep/run-grep-search.ts';
import { makeTempDirectory } from '../../../helpers/tool-context.ts';

const temp = makeTempDirectory('mango-grep-run-');
beforeAll(() => {
  for (let index = 0; index < 300; index += 1) {
    const directory = join(temp.path, `d${index % 7}`);
    mkdirSync(directory, { recursive: true });
    writeFileSync(
      join(directory, `f${index}.txt`),
      `head ${index}\n${index % 3 === 0 ? 'needle here' : 'nothing'}\ntail\n`,
    );
  }
});
afterAll(() => temp.remove());

async function search(pattern: string, workers: 'auto' | number, maxResults = 10_000, keepThreads = false) {
  const result = await runGrepSearch(
    {
      spec: compileGrepPattern(pattern, false),
      dot: false,
      maxResults,
      maxMatchesPerFile: 20,
      maxFileSizeBytes: 1 << 20,
    },
    {
      root: temp.path,
      rootIsFile: false,
      signal: new AbortController().signal,
      allows: () => true,
      workers,
      keepThreads,
    },
  );
  return {
    found: result.files.flatMap((file) =>
      file.matches.map((match) => `${file.file}:${match.line}:${match.text}`),
    ),
    filesScanned: result.filesScanned,
    hitMaxResults: result.hitMaxResults,
  };
}

test.each([['needle'], ['need.e'], ['(n)eedle(?= here)']])(
  '%s: worker threads find exactly what the calling thread finds, in walk order',
  async (pattern) => {
    const inProcess = pattern.includes('(?=') ? await search(pattern, 1) : await search(pattern, 0);
    const inWorkers = await search(pattern, 2);
    expect(inWorkers).toEqual(inProcess);
    expect(inProcess.found.length).toBe(100);
    expect(inProcess.filesScanned).toBe(300);
  },
);

test('maxResults stops the walk early in both modes', async () => {
  for (const workers of [0, 2]) {
    const result = await search('needle', workers, 5);
    expect(result.found.length).toBe(5);
    expect(result.hitMaxResults).toBe(true);
  }
});

test('kept threads serve search after search: a search cut early leaves nothing behind for the next', async () => {
  const whole = await search('needle', 0);
  for (const maxResults of [3, 10_000, 1, 10_000]) {
    const kept = await search('needle', 'auto', maxResults, true);
    if (maxResults === 10_000) expect(kept).toEqual(whole);
    else expect(kept.found).toEqual(whole.found.slice(0, maxResults));
  }
  // Another pattern on the same threads: they rebuilt their matcher.
  expect((await search('tail', 'auto', 10_000, true)).found.length).toBe(300);
});
