import { expect, test } from 'bun:test';
import { ConfigError, loadConfig } from '../src/config.ts';

test('defaults: 127.0.0.1:3000, ./data, SQLite', () => {
  expect(loadConfig({}, '/srv/mango')).toMatchObject({
    host: '127.0.0.1',
    port: 3000,
    dataDirectory: '/srv/mango/data',
    databaseUrl: undefined,
  });
});

test('environment overrides', () => {
  expect(
    loadConfig(
      { HOST: '0.0.0.0', PORT: '0', MANGO_DATA_DIR: 'var', DATABASE_URL: 'postgresql://u@db/mango' },
      '/srv',
    ),
  ).toMatchObject({
    host: '0.0.0.0',
    port: 0,
    dataDirectory: '/srv/var',
    databaseUrl: 'postgresql://u@db/mango',
  });
  expect(loadConfig({ DATABASE_URL: '  ', PORT: '' }, '/')).toMatchObject({
    databaseUrl: undefined,
    port: 3000,
  });
});

test.each([
  [{ PORT: '65536' }],
  [{ PORT: '-1' }],
  [{ PORT: '80x' }],
  [{ DATABASE_URL: 'mysql://x' }],
  [{ DATABASE_URL: 'sqlite://./x.db' }],
])('refuses %p', (env) => {
  expect(() => loadConfig(env, '/')).toThrow(ConfigError);
});
