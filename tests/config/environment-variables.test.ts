import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ConfigError } from '../../src/config/config-error.ts';
import {
  ENVIRONMENT_VARIABLES,
  readEnvironment,
  readVariable,
  type VariableName,
} from '../../src/config/environment-variables.ts';

const SOURCE = join(import.meta.dir, '..', '..', 'src');

describe('readEnvironment', () => {
  test('an empty environment gives every default', () => {
    expect(readEnvironment({})).toEqual({
      HOST: '127.0.0.1',
      PORT: 3000,
      MANGO_DATA_DIR: 'data',
      MANGO_MAX_UPLOAD_BYTES: 26_214_400,
      MANGO_USER_DISK_BYTES: undefined,
      DATABASE_URL: undefined,
      MANGO_WORKSPACES_DIR: undefined,
      XDG_DATA_HOME: undefined,
      HOME: undefined,
      MANGO_WORKSPACE_ROOTS: undefined,
      MANGO_ALLOWED_HOSTS: [],
      MANGO_ALLOWED_ORIGINS: [],
      MANGO_MAX_TOOL_ITERATIONS: 25,
      MANGO_TURN_LEASE_MS: 30_000,
      MANGO_WAKE_UP_POLL_MS: 5000,
      MANGO_USER_MAX_TURNS: 4,
      MANGO_USER_MAX_TOOL_CALLS: 8,
      MANGO_SHELL_SANDBOX: 'bubblewrap',
      MANGO_SHELL_PASS_ENV: [],
      MANGO_SANDBOX_POOL: 4,
      MANGO_SANDBOX_USER_MEMORY: 2 * 1024 ** 3,
      MANGO_SANDBOX_UID_BASE: 1_900_000_000,
      MANGO_SANDBOX_UID_COUNT: 65_536,
      MANGO_SANDBOX_UID: 61000,
      MANGO_MCP_SERVERS: undefined,
      MANGO_MCP_ALLOW_PRIVATE: '0',
      MANGO_SECRET_KEY: undefined,
      MANGO_SECRET_KEY_PREVIOUS: undefined,
      MANGO_MCP_MAX_TOOLS: 200,
      MANGO_MCP_MAX_DESCRIPTION_BYTES: 8192,
      MANGO_MCP_MAX_SCHEMA_BYTES: 65536,
      MANGO_MCP_MAX_LISTING_BYTES: 1048576,
      MANGO_MCP_MAX_RESULT_BYTES: 8388608,
      MANGO_MCP_MAX_CACHED_BYTES_PER_USER: 4194304,
      MANGO_PROVIDER_FIRST_EVENT_TIMEOUT_SECONDS: 120,
      MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS: 300,
      MANGO_PROVIDER_MAX_RETRIES: 2,
      MANGO_PROVIDER_RETRY_MAX_WAIT_SECONDS: 60,
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: undefined,
      OPENAI_COMPATIBLE_BASE_URL: undefined,
      OPENAI_COMPATIBLE_API_KEY: undefined,
      GEMINI_API_KEY: undefined,
      GEMINI_BASE_URL: undefined,
      GOOGLE_GENAI_USE_VERTEXAI: undefined,
      GOOGLE_CLOUD_PROJECT: undefined,
      GOOGLE_CLOUD_LOCATION: undefined,
      GOOGLE_APPLICATION_CREDENTIALS: undefined,
      GOOGLE_VERTEX_BASE_URL: undefined,
      ANTHROPIC_API_KEY: undefined,
      ANTHROPIC_BASE_URL: undefined,
    });
  });

  test('values are trimmed; blank means the default', () => {
    const config = readEnvironment({
      HOST: ' 0.0.0.0 ',
      PORT: '',
      MANGO_SHELL_SANDBOX: '  ',
      OPENAI_API_KEY: ' sk-1 ',
      MANGO_ALLOWED_HOSTS: 'a.example, b.example:8080,,',
      MANGO_SHELL_PASS_ENV: 'HTTP_PROXY, NO_PROXY  CI',
    });
    expect(config.HOST).toBe('0.0.0.0');
    expect(config.PORT).toBe(3000);
    expect(config.MANGO_SHELL_SANDBOX).toBe('bubblewrap');
    expect(config.OPENAI_API_KEY).toBe('sk-1');
    expect(config.MANGO_ALLOWED_HOSTS).toEqual(['a.example', 'b.example:8080']);
    expect(config.MANGO_SHELL_PASS_ENV).toEqual(['HTTP_PROXY', 'NO_PROXY', 'CI']);
  });

  test('the first malformed variable stops the read, naming it', () => {
    expect(() => readEnvironment({ PORT: '80', MANGO_MAX_TOOL_ITERATIONS: '0' })).toThrow(
      'MANGO_MAX_TOOL_ITERATIONS must be an integer from 1 to 1000, got "0".',
    );
  });
});

describe('integer variables: the bounds are inclusive, anything else is refused with the bounds', () => {
  const cases: [VariableName, number, number, string][] = [
    ['PORT', 0, 65535, 'an integer from 0 to 65535'],
    ['MANGO_MAX_UPLOAD_BYTES', 1, Number.MAX_SAFE_INTEGER, 'an integer from 1 to 9007199254740991 (bytes)'],
    ['MANGO_MAX_TOOL_ITERATIONS', 1, 1000, 'an integer from 1 to 1000'],
    ['MANGO_TURN_LEASE_MS', 300, 600_000, 'an integer from 300 to 600000 (milliseconds)'],
    ['MANGO_USER_MAX_TURNS', 1, 1000, 'an integer from 1 to 1000'],
    ['MANGO_USER_MAX_TOOL_CALLS', 1, 1000, 'an integer from 1 to 1000'],
    ['MANGO_SANDBOX_POOL', 0, 64, 'a count from 0 to 64'],
    [
      'MANGO_SANDBOX_USER_MEMORY',
      64 * 1024 ** 2,
      Number.MAX_SAFE_INTEGER,
      'a number of bytes, at least 67108864 (64 MiB), such as 2147483648 for 2 GiB',
    ],
    ['MANGO_SANDBOX_UID', 1, 4_294_967_294, 'a uid from 1 to 4294967294'],
    ['MANGO_SANDBOX_UID_BASE', 1000, 2_147_000_000, 'an id from 1000 to 2147000000'],
    ['MANGO_SANDBOX_UID_COUNT', 2, 16_777_216, 'a count from 2 to 16777216'],
    ['MANGO_PROVIDER_FIRST_EVENT_TIMEOUT_SECONDS', 1, 86_400, 'an integer from 1 to 86400 (seconds)'],
    ['MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS', 1, 86_400, 'an integer from 1 to 86400 (seconds)'],
    ['MANGO_PROVIDER_MAX_RETRIES', 0, 10, 'an integer from 0 to 10'],
    ['MANGO_PROVIDER_RETRY_MAX_WAIT_SECONDS', 0, 86_400, 'an integer from 0 to 86400 (seconds)'],
  ];
  for (const [name, minimum, maximum, expected] of cases) {
    test(name, () => {
      expect(readVariable({ [name]: String(minimum) }, name)).toBe(minimum);
      expect(readVariable({ [name]: ` ${maximum} ` }, name)).toBe(maximum);
      const refused = [String(maximum + 1), '-1', '2.5', '1e3', 'ten', '0x10'];
      if (minimum > 0) refused.push(String(minimum - 1));
      for (const raw of refused) {
        expect(() => readVariable({ [name]: raw }, name)).toThrow(
          new ConfigError(`${name} must be ${expected}, got ${JSON.stringify(raw)}.`),
        );
      }
    });
  }
});

describe('MANGO_USER_DISK_BYTES: whole MiB from 4 MiB to 16 TiB, in bytes or binary units; 0 is none', () => {
  const read = (raw: string) => readVariable({ MANGO_USER_DISK_BYTES: raw }, 'MANGO_USER_DISK_BYTES');

  test('accepted values', () => {
    expect(read('5368709120')).toBe(5 * 1024 ** 3);
    expect(read('5GiB')).toBe(5 * 1024 ** 3);
    expect(read(' 512 MiB ')).toBe(512 * 1024 ** 2);
    expect(read('4MiB')).toBe(4 * 1024 ** 2);
    expect(read('16TiB')).toBe(16 * 1024 ** 4);
    expect(read('0')).toBeUndefined();
    expect(readVariable({}, 'MANGO_USER_DISK_BYTES')).toBeUndefined();
  });

  test('refused values name the rule', () => {
    for (const raw of ['3MiB', '5GB', '5000000', '17TiB', '-1', '1.5GiB', 'lots']) {
      expect(() => read(raw)).toThrow(
        new ConfigError(
          `MANGO_USER_DISK_BYTES must be a whole number of MiB from 4 MiB to 16 TiB (bytes, or with KiB, MiB, GiB, TiB), or 0 for none, got ${JSON.stringify(raw)}.`,
        ),
      );
    }
  });
});

describe('refusals', () => {
  test('a ConfigError names its variable', () => {
    let caught: unknown;
    try {
      readVariable({ MANGO_SHELL_SANDBOX: 'none' }, 'MANGO_SHELL_SANDBOX');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe('MANGO_SHELL_SANDBOX');
    expect((caught as ConfigError).message).toBe(
      'MANGO_SHELL_SANDBOX must be "bubblewrap" or "off", got "none".',
    );
  });

  test('a list entry that is not a variable name is refused, naming the entry', () => {
    expect(() => readVariable({ MANGO_SHELL_PASS_ENV: 'HTTP_PROXY,AWS_*' }, 'MANGO_SHELL_PASS_ENV')).toThrow(
      new ConfigError(
        'MANGO_SHELL_PASS_ENV entries must be variable names (letters, digits, _) separated by commas, got "AWS_*".',
      ),
    );
    expect(() => readVariable({ MANGO_SHELL_PASS_ENV: '1ABC' }, 'MANGO_SHELL_PASS_ENV')).toThrow(
      'got "1ABC"',
    );
  });

  test('DATABASE_URL is refused without quoting it: it may hold a password', () => {
    expect(() => readVariable({ DATABASE_URL: 'mysql://root:hunter2@db/x' }, 'DATABASE_URL')).toThrow(
      new ConfigError(
        'DATABASE_URL must be a postgres:// or postgresql:// URL (leave it unset to use SQLite), got another value (not shown: it may hold a password).',
      ),
    );
    expect(readVariable({ DATABASE_URL: 'PostgreSQL://u@db/m' }, 'DATABASE_URL')).toBe('PostgreSQL://u@db/m');
  });

  test('the removed MANGO_WORKSPACE_ROOTS is refused even when blank', () => {
    for (const raw of ['/srv', '']) {
      expect(() => readVariable({ MANGO_WORKSPACE_ROOTS: raw }, 'MANGO_WORKSPACE_ROOTS')).toThrow(
        'MANGO_WORKSPACE_ROOTS is no longer supported: directories now belong to users.',
      );
    }
    expect(readVariable({}, 'MANGO_WORKSPACE_ROOTS')).toBeUndefined();
  });
});

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the declarations are the only place a variable is read', () => {
  const files = sourceFiles(SOURCE).filter((path) => !relative(SOURCE, path).startsWith('config/'));

  test('every MANGO_ name in src/ is declared', () => {
    const named = new Set<string>();
    for (const path of files) {
      for (const match of readFileSync(path, 'utf8').matchAll(/\bMANGO_[A-Z0-9_]+\b/g)) named.add(match[0]);
    }
    const undeclared = [...named].filter((name) => !(name in ENVIRONMENT_VARIABLES));
    expect(undeclared).toEqual([]);
    expect(named.size).toBeGreaterThan(10);
  });

  test('no file outside src/config/ reads a variable by name from an environment record', () => {
    // COLUMNS is the width of the terminal the CLI writes to, not a setting of Mango.
    const reads: string[] = [];
    for (const path of files) {
      const text = readFileSync(path, 'utf8');
      for (const match of text.matchAll(/\b(?:env|environment|process\.env)\.([A-Z][A-Z0-9_]*)\b/g)) {
        if (match[1] !== 'COLUMNS') reads.push(`${relative(SOURCE, path)}: ${match[0]}`);
      }
    }
    expect(reads).toEqual([]);
  });
});
