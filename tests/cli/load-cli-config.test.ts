import { describe, expect, test } from 'bun:test';
import { loadCliConfig } from '../../src/cli/load-cli-config.ts';
import { UsageError } from '../../src/cli/usage-error.ts';

describe('loadCliConfig', () => {
  test('a configuration mistake is a usage error carrying the configuration message', () => {
    let caught: unknown;
    try {
      loadCliConfig({ env: { PORT: 'eighty' }, cwd: '/tmp' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as Error).message).toStartWith('PORT must be ');
    expect((caught as Error).message).toContain('"eighty"');
  });

  test('a valid environment gives the configuration', () => {
    const config = loadCliConfig({
      env: { PORT: '8123', MANGO_DATA_DIR: '/tmp/mango-cli-config' },
      cwd: '/tmp',
    });
    expect(config.port).toBe(8123);
  });
});
