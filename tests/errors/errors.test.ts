/**
 * The one error model: every error class of `src/` extends `MangoError`, each local code an error of
 * `src/` is built with is one of `LOCAL_ERROR_CODES`, docs/errors.md lists exactly those codes with their
 * meanings, and `errorMessage` reports any thrown value.
 */
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ConfigError } from '../../src/config/config-error.ts';
import { TOOL_ERROR_CLASSIFICATIONS } from '../../src/contracts/tool-error-classification.ts';
import { errorMessage } from '../../src/errors/error-message.ts';
import { LOCAL_ERROR_CODES } from '../../src/errors/local-error-codes.ts';
import { MangoError } from '../../src/errors/mango-error.ts';
import { ToolArgumentError } from '../../src/tools/errors.ts';

const ROOT = join(import.meta.dir, '..', '..');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const sources = sourceFiles(join(ROOT, 'src')).map((path) => ({
  file: relative(ROOT, path),
  text: readFileSync(path, 'utf8'),
}));

describe('the error model', () => {
  test('only MangoError extends Error directly', () => {
    const direct = sources.flatMap(({ file, text }) =>
      [...text.matchAll(/class (\w+) extends Error\b/g)].map((match) => `${file}: ${match[1]}`),
    );
    expect(direct).toEqual(['src/errors/mango-error.ts: MangoError']);
  });

  test('every literal code a MangoError subclass passes up is a local code or a tool classification', () => {
    const codes = sources.flatMap(({ text }) =>
      text.includes('extends MangoError')
        ? [...text.matchAll(/super\('([^']+)'/g)].map((match) => match[1] ?? '')
        : [],
    );
    expect(codes).toContain('config_invalid');
    const classifications = new Set<string>(TOOL_ERROR_CLASSIFICATIONS);
    expect(codes.filter((code) => !(code in LOCAL_ERROR_CODES) && !classifications.has(code))).toEqual([]);
  });

  test('docs/errors.md lists exactly the local codes, with their meanings', () => {
    const page = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8');
    const rows = page
      .slice(page.indexOf('## Local codes'))
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => {
        const [code, meaning] = line.split(' | ').map((cell) => cell.replace(/^\|\s*|\s*\|$/g, '').trim());
        return [code?.replace(/^`|`$/g, ''), meaning];
      });
    expect(rows).toEqual(Object.entries(LOCAL_ERROR_CODES));
  });

  test('an error carries its code and its message; public codes keep their names', () => {
    const config = new ConfigError('PORT must be an integer, got "x".', 'PORT');
    expect(config).toBeInstanceOf(MangoError);
    expect({ code: config.code, message: config.message, variable: config.variable }).toEqual({
      code: 'config_invalid',
      message: 'PORT must be an integer, got "x".',
      variable: 'PORT',
    });
    const argument = new ToolArgumentError('Argument "path" must be a string.');
    expect({ code: argument.code, classification: argument.classification }).toEqual({
      code: 'validation_failed',
      classification: 'validation_failed',
    });
  });
});

describe('errorMessage', () => {
  test("an Error's message, anything else as its string form", () => {
    expect(errorMessage(new Error('disk full'))).toBe('disk full');
    expect(errorMessage('plain text')).toBe('plain text');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
  });
});
