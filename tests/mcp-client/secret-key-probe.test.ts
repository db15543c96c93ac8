/**
 * The secret key's probe on both databases: the first start writes it, the same key opens it, another
 * key or none is refused naming MANGO_SECRET_KEY, a deployment older than the probe is checked against
 * its stored values first, two newcomers racing with different keys end with one winner, and a
 * rotation re-seals the old key's values under the new one. The server refuses to start on a wrong key.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { ConfigError } from '../../src/config/config-error.ts';
import { DatabaseSecretKeyProbeRepository } from '../../src/db/database-secret-key-probe-repository.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { HeaderCipher } from '../../src/mcp-client/header-cipher.ts';
import { checkSecretKey } from '../../src/mcp-client/secret-key-probe.ts';
import { startServer } from '../../src/server/start-server.ts';
import { createTestRegistry } from '../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

const KEY_A = 'a'.repeat(32);
const KEY_B = 'b'.repeat(32);
const NOW = Date.parse('2026-12-02T10:00:00.000Z');

async function refusal(promise: Promise<unknown>): Promise<ConfigError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError, the check passed');
}

describe.each(BACKENDS)('the secret key probe on %s', (backend) => {
  let handle: TestDatabase | undefined;
  afterEach(async () => {
    await handle?.dispose();
    handle = undefined;
  });

  async function setUp(): Promise<DatabaseSecretKeyProbeRepository> {
    handle = await createTestDatabase(backend);
    return new DatabaseSecretKeyProbeRepository(handle.database);
  }

  const check = (repository: DatabaseSecretKeyProbeRepository, current?: string, previous?: string) =>
    checkSecretKey({ repository, current, previous, now: () => NOW });

  async function storeHeaders(key: string, headers: Record<string, string>): Promise<string> {
    const { user } = await new DatabaseUserRepository(handle!.database).create('alice');
    const sealed = new HeaderCipher(key).seal(headers);
    await handle!.database.sql`
      INSERT INTO user_mcp_servers (user_id, name, url, header_names_json, sealed_headers, created_at, updated_at)
      VALUES (${user.id}, 'docs', 'https://example.test/mcp', '["authorization"]', ${sealed}, 'x', 'x')`;
    return user.id;
  }

  test('the first start writes the probe, the same key opens it, another key is refused', async () => {
    const repository = await setUp();
    expect(await check(repository, KEY_A)).toBe('MANGO_SECRET_KEY: wrote the key probe into the database.');
    expect(await check(repository, KEY_A)).toBe('MANGO_SECRET_KEY opens the key probe of this database.');
    const refused = await refusal(check(repository, KEY_B));
    expect(refused.variable).toBe('MANGO_SECRET_KEY');
    expect(refused.message).toStartWith(
      'MANGO_SECRET_KEY cannot open the key probe of this database: it is not the key the other instances (or an earlier start) use',
    );
  });

  test('no key: fine without a probe, refused once the deployment has one', async () => {
    const repository = await setUp();
    expect(await check(repository)).toBe(
      'MANGO_SECRET_KEY is not set: users cannot add MCP servers with headers.',
    );
    await check(repository, KEY_A);
    const refused = await refusal(check(repository));
    expect(refused.variable).toBe('MANGO_SECRET_KEY');
    expect(refused.message).toStartWith(
      "MANGO_SECRET_KEY is not set, but the instances of this database seal users' MCP server headers with one (its probe was written 2026-12-02T10:00:00.000Z).",
    );
    const previousOnly = await refusal(check(repository, undefined, KEY_A));
    expect(previousOnly.message).toStartWith('MANGO_SECRET_KEY_PREVIOUS is set but MANGO_SECRET_KEY is not');
  });

  test('a deployment older than the probe: a key that opens none of its values writes no probe', async () => {
    const repository = await setUp();
    await storeHeaders(KEY_A, { authorization: 'Bearer t' });
    const refused = await refusal(check(repository, KEY_B));
    expect(refused.message).toStartWith(
      'MANGO_SECRET_KEY opens none of the 1 sealed header value stored in this database',
    );
    expect(await repository.readProbe('mcp-headers')).toBeUndefined();
    expect(await check(repository, KEY_A)).toBe('MANGO_SECRET_KEY: wrote the key probe into the database.');
  });

  test('two newcomers with different keys at once: one writes the probe, the other is refused', async () => {
    const repository = await setUp();
    const outcomes = await Promise.allSettled([check(repository, KEY_A), check(repository, KEY_B)]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(ConfigError);
  });

  test('rotation: the previous key opens, its values are re-sealed under the new key', async () => {
    const repository = await setUp();
    await storeHeaders(KEY_A, { authorization: 'Bearer old' });
    await check(repository, KEY_A);
    expect(await check(repository, KEY_B, KEY_A)).toBe(
      'MANGO_SECRET_KEY opens the key probe of this database; re-sealed 1 value of MANGO_SECRET_KEY_PREVIOUS under it; remove MANGO_SECRET_KEY_PREVIOUS once every instance runs with the new key.',
    );
    // Now the new key alone opens everything, and the old one alone is refused.
    expect(await check(repository, KEY_B)).toBe('MANGO_SECRET_KEY opens the key probe of this database.');
    const [stored] = await repository.listSealedHeaders();
    expect(new HeaderCipher(KEY_B).open(stored!.sealed)).toEqual({ authorization: 'Bearer old' });
    expect((await refusal(check(repository, KEY_A))).variable).toBe('MANGO_SECRET_KEY');
  });

  test('the server refuses to start with a key that does not open the probe', async () => {
    handle = await createTestDatabase(backend, { migrate: false });
    const registry = createTestRegistry();
    const first = await startServer(handle.config, {
      print: () => {},
      registry,
      env: { MANGO_SECRET_KEY: KEY_A },
    });
    await first.stop();
    const refused = await refusal(
      startServer(handle.config, { print: () => {}, registry, env: { MANGO_SECRET_KEY: KEY_B } }),
    );
    expect(refused.variable).toBe('MANGO_SECRET_KEY');
    const again = await startServer(handle.config, {
      print: () => {},
      registry,
      env: { MANGO_SECRET_KEY: KEY_A },
    });
    await again.stop();
  });
});
