import { expect, test } from 'bun:test';
import { ConfigError, dataDirectoryOf, defaultWorkspacesDirectory, loadConfig } from '../src/config.ts';

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

test('refusals name the variable, what it expects and what it got; a database URL is never quoted', () => {
  expect(() => loadConfig({ PORT: '80x' }, '/')).toThrow(
    new ConfigError('PORT must be an integer from 0 to 65535, got "80x".'),
  );
  expect(() => loadConfig({ MANGO_MAX_UPLOAD_BYTES: '0' }, '/')).toThrow(
    new ConfigError('MANGO_MAX_UPLOAD_BYTES must be an integer from 1 to 9007199254740991 (bytes), got "0".'),
  );
  let message = '';
  try {
    loadConfig({ DATABASE_URL: 'mysql://root:hunter2@db/x' }, '/');
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toStartWith('DATABASE_URL must be a postgres:// or postgresql:// URL');
  expect(message).not.toContain('hunter2');
});

test('the data directory: blank means ./data, a relative one is resolved against the given cwd', () => {
  expect(dataDirectoryOf({ MANGO_DATA_DIR: '  ' }, '/srv/mango')).toBe('/srv/mango/data');
  expect(dataDirectoryOf({ MANGO_DATA_DIR: 'state' }, '/srv/mango')).toBe('/srv/mango/state');
  expect(dataDirectoryOf({ MANGO_DATA_DIR: '/var/lib/mango' }, '/srv/mango')).toBe('/var/lib/mango');
});

test('the workspaces directory defaults under XDG_DATA_HOME, else HOME', () => {
  expect(defaultWorkspacesDirectory({ XDG_DATA_HOME: '/x/share', HOME: '/home/a' }, 1000)).toBe(
    '/x/share/mango/workspaces',
  );
  expect(defaultWorkspacesDirectory({ XDG_DATA_HOME: ' ', HOME: '/home/a' }, 1000)).toBe(
    '/home/a/.local/share/mango/workspaces',
  );
  expect(defaultWorkspacesDirectory({ HOME: '/home/a' }, 0)).toBe('/var/lib/mango/workspaces');
});
