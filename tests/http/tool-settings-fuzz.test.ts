/**
 * Fuzz of both settings routes: random JSON shapes, wrong types, huge and deeply nested bodies, unicode
 * and overlong tool names, odd content types. Every response must be a 2xx, or a 4xx with a JSON
 * `{error, code}`; afterwards every stored row must pass the strict settings resolver.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mergeToolSettings } from '../../src/tools/tool-settings-resolver.ts';
import { createRandom } from '../helpers/seeded-random.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { BACKENDS } from '../helpers/test-database.ts';

const SEED = Number(process.env.MANGO_FUZZ_SEED ?? 20261130);
const ROUNDS = 250;
const KNOWN_PARAMETERS = ['timeoutSeconds', 'ratio', 'verbose', 'label', 'quality', 'names', 'allowedPaths'];
const STRINGS = [
  '',
  'x',
  'high',
  'medium',
  'ツール',
  '🔧🔧',
  '\u0000',
  '\ud800',
  'a'.repeat(5000),
  '../../etc',
  '%00',
];

function fuzzCase(random: ReturnType<typeof createRandom>) {
  const value = (depth: number): unknown => {
    switch (random.integer(0, depth > 3 ? 5 : 8)) {
      case 0:
        return null;
      case 1:
        return random.next() < 0.5;
      case 2:
        return random.pick([0, -1, 5, 30, 600, 601, 1e308, -1e308, 0.5, 2 ** 53 + 1, 1.5]);
      case 3:
      case 4:
        return random.pick(STRINGS);
      case 5:
        return [{ path: random.pick(STRINGS), enabled: random.next() < 0.5 }];
      case 6:
        return Array.from({ length: random.integer(0, 4) }, () => value(depth + 1));
      default: {
        const object: Record<string, unknown> = {};
        for (let index = random.integer(0, 4); index > 0; index--) {
          const key = random.pick([
            ...KNOWN_PARAMETERS,
            'enabled',
            'parameters',
            '__proto__',
            'constructor',
            'ü',
          ]);
          // defineProperty: an assignment to "__proto__" would set the prototype and never reach the JSON.
          Object.defineProperty(object, key, {
            value: value(depth + 1),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return object;
      }
    }
  };
  const toolName = random.pick([
    'tunable',
    'tunable',
    'locked',
    encodeURIComponent(random.pick(STRINGS.filter((item) => item !== '' && item !== '\ud800'))),
    '%ED%A0%80', // a UTF-16 surrogate in UTF-8: invalid
    'x'.repeat(random.integer(100, 3000)),
    '%E0%A4%A',
    'tunable%2F..',
  ]);
  let body: string;
  switch (random.integer(0, 9)) {
    case 0:
      body = JSON.stringify(value(0)).slice(0, random.integer(0, 40)); // truncated
      break;
    case 1:
      body = `${'['.repeat(5000)}${']'.repeat(5000)}`; // deeply nested
      break;
    case 2:
      body = JSON.stringify({ parameters: { label: 'y'.repeat(2 * 1024 * 1024) } }); // over the limit
      break;
    case 3:
      body = JSON.stringify(value(0));
      break;
    default: {
      const parameters: Record<string, unknown> = {};
      for (let index = random.integer(0, 3); index > 0; index--)
        parameters[random.pick(KNOWN_PARAMETERS)] = value(2);
      body = JSON.stringify({
        ...(random.next() < 0.5 ? { enabled: random.next() < 0.8 ? random.next() < 0.5 : value(2) } : {}),
        ...(random.next() < 0.8 ? { parameters } : {}),
      });
    }
  }
  const contentType = random.pick([
    'application/json',
    'application/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    '',
  ]);
  return { method: random.next() < 0.85 ? 'PUT' : 'GET', toolName, body, contentType };
}

describe.each(BACKENDS)('settings API fuzz on %s', (backend) => {
  let api: TestApp;
  let token: string;
  let userId: string;
  beforeAll(async () => {
    api = await createTestApp(backend);
    const created = await api.deps.users.create('fuzzer');
    token = created.token;
    userId = created.user.id;
  });
  afterAll(() => api.dispose());

  test(`${ROUNDS} random requests: only 2xx or 4xx with a JSON error (seed ${SEED})`, async () => {
    const random = createRandom(SEED);
    const statuses = new Map<number, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const fuzz = fuzzCase(random);
      const path = fuzz.method === 'GET' ? '/api/settings/tools' : `/api/settings/tools/${fuzz.toolName}`;
      const headers: Record<string, string> = { 'content-length': String(Buffer.byteLength(fuzz.body)) };
      if (fuzz.contentType) headers['content-type'] = fuzz.contentType;
      const response = await api.request(fuzz.method, path, {
        token,
        body: fuzz.method === 'PUT' ? fuzz.body : undefined,
        headers: fuzz.method === 'PUT' ? headers : {},
      });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const context = `round ${round}: ${fuzz.method} ${path.slice(0, 80)} ${fuzz.body.slice(0, 120)}`;
      expect(response.status >= 200 && response.status < 500, context).toBe(true);
      if (response.status >= 400) {
        expect(response.json, context).toMatchObject({ error: expect.any(String), code: expect.any(String) });
      }
    }
    // The mix really exercised every outcome.
    for (const status of [200, 400, 404, 413, 422]) expect(statuses.get(status) ?? 0).toBeGreaterThan(0);
    expect(api.logged).toEqual([]);
  });

  test('afterwards every stored row passes the strict policy and GET still works', async () => {
    const rows = await api.deps.toolSettingsRepository.getAll(userId);
    expect(Object.keys(rows).length).toBeGreaterThan(0);
    for (const [toolName, row] of Object.entries(rows)) {
      const tool = api.deps.registry.get(toolName);
      expect(tool).toBeDefined();
      expect(() => mergeToolSettings(tool!, row as never)).not.toThrow();
    }
    expect((await api.request('GET', '/api/settings/tools', { token })).status).toBe(200);
  });
});
