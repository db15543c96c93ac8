/**
 * The OpenAPI lint of `npm run check`: builds the server's API document from its real routes (an app
 * over a throwaway SQLite database, so the document is exactly what `/api/openapi.json` serves) and
 * lints it with Redocly's recommended rules, warnings as errors (`recommended-strict`), less the
 * findings {@link ACCEPTED} names with the reason each is true of this API. Prints Redocly's findings and
 * exits non-zero on any. Run as `bun scripts/lint-openapi.ts`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import packageJson from '../package.json' with { type: 'json' };
import { buildOpenApiDocument, type RouteForDocument } from '../src/http/openapi.ts';
import { openScratchApp } from '../src/server/scratch-app.ts';

const root = resolve(import.meta.dir, '..');

/** Findings that are true of this API and stay: rule, JSON pointer into the document, and why. */
const ACCEPTED: readonly { rule: string; pointer: string; why: string }[] = [
  { rule: 'info-license', pointer: '#/info', why: 'a private package states no licence to its readers' },
  {
    rule: 'operation-4xx-response',
    pointer: '#/paths/~1api~1health/get/responses',
    why: 'the readiness check takes no input and no token: it answers 200 or 503, never a 4xx',
  },
];

/** Redocly's ignore file for {@link ACCEPTED}, naming `document` (relative to the file). */
function ignoreFile(document: string): string {
  const rules = [...new Set(ACCEPTED.map((entry) => entry.rule))];
  const lines = [`${document}:`];
  for (const rule of rules) {
    lines.push(`  ${rule}:`);
    for (const entry of ACCEPTED.filter((accepted) => accepted.rule === rule)) {
      lines.push(`    # ${entry.why}`, `    - '${entry.pointer}'`);
    }
  }
  return `${lines.join('\n')}\n`;
}
const scratch = await mkdtemp(join(tmpdir(), 'mango-openapi-lint-'));
let status = 1;
try {
  const { app, database } = await openScratchApp(scratch);
  const document = buildOpenApiDocument(app.routes as unknown as RouteForDocument[], packageJson.version);
  await database.close();
  await writeFile(join(scratch, 'openapi.json'), JSON.stringify(document, null, 2));
  // Redocly reads its ignore file beside its configuration, with paths relative to it.
  await writeFile(join(scratch, 'redocly.yaml'), 'extends:\n  - recommended-strict\n');
  await writeFile(join(scratch, '.redocly.lint-ignore.yaml'), ignoreFile('openapi.json'));
  // Redocly's CLI runs under Node (it supports no other runtime).
  const lint = Bun.spawn(
    [
      'node',
      join(root, 'node_modules/@redocly/cli/bin/cli.js'),
      'lint',
      'openapi.json',
      '--config',
      'redocly.yaml',
      '--format',
      'stylish',
    ],
    {
      cwd: scratch,
      stdout: 'inherit',
      stderr: 'inherit',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  status = await lint.exited;
} finally {
  await rm(scratch, { recursive: true, force: true });
}
if (status === 0) console.log('OpenAPI lint: no problem (Redocly recommended rules, warnings as errors).');
process.exit(status);
