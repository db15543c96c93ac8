/**
 * The environment-read rule of the layer check: a read of `process.env` in `src/` outside `src/config/`
 * is a problem naming the file and line; comments, `src/config/` and files outside `src/` are not.
 */
import { expect, test } from 'bun:test';
import { findEnvironmentReads } from '../../../scripts/layers/environment-reads.ts';

const files: Record<string, string> = {
  'src/config/process-environment.ts': 'export const env = () => process.env;\n',
  'src/tools/reads.ts': '// process.env in a comment\nconst a = 1;\nconst home = process.env.HOME;\n',
  'src/tools/indexed.ts': "const all = process['env'];\n",
  'src/tools/commented.ts': '/** default `process.env` */\nexport const x = 1; // process.env\n',
  'web/app.ts': 'const url = "http://x"; process.env;\n',
};

test('reads outside src/config/ are named with their first line; comments are not reads', () => {
  expect(findEnvironmentReads(Object.keys(files), (file) => files[file] ?? '')).toEqual([
    'process.env read outside src/config/: src/tools/indexed.ts:1; take the environment from src/config/process-environment.ts.',
    'process.env read outside src/config/: src/tools/reads.ts:3; take the environment from src/config/process-environment.ts.',
  ]);
});

test('the real tree reads the environment only in src/config/', async () => {
  const { checkLayers } = await import('../../../scripts/check-layers.ts');
  const root = `${import.meta.dir}/../../..`;
  expect(checkLayers(root).problems.filter((line) => line.startsWith('process.env'))).toEqual([]);
});
