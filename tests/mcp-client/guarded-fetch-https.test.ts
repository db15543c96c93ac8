/**
 * The guarded fetch over HTTPS, against a TLS server on loopback whose self-signed certificate the
 * test makes with `openssl`: with private addresses not allowed it is refused by literal, by name and —
 * when a name's answer passed the policy — on the address the socket actually connected, before any
 * request reaches the server; with them allowed it works once the client process trusts the test
 * certificate (NODE_EXTRA_CA_CERTS), and without that trust it fails verification.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGuardedFetch } from '../../src/mcp-client/guarded-fetch.ts';
import { type AddressVerdict, judgeAddress } from '../../src/mcp-client/judge-address.ts';
import { outcomeOf } from './fetch-outcome.ts';

const CLIENT = join(import.meta.dir, '__fixtures__', 'guarded-fetch-client.ts');

describe('the guarded fetch over HTTPS', () => {
  let directory: string;
  let certificate: string;
  let server: ReturnType<typeof Bun.serve>;
  let requests = 0;
  let port: number;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'mango-mcp-tls-'));
    certificate = join(directory, 'certificate.pem');
    const key = join(directory, 'key.pem');
    const made = Bun.spawnSync(
      [
        'openssl',
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        certificate,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { stderr: 'pipe' },
    );
    if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
    server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      tls: { cert: readFileSync(certificate, 'utf8'), key: readFileSync(key, 'utf8') },
      fetch: async (request) => {
        requests += 1;
        return new Response(`tls ${request.method} ${await request.text()}`);
      },
    });
    port = server.port ?? 0;
  });
  afterAll(() => {
    server.stop(true);
    rmSync(directory, { recursive: true, force: true });
  });

  /** Runs the fetch in a child process, trusting the test certificate when `trusted`. */
  async function fetchInChild(url: string, allowPrivate: boolean, trusted: boolean): Promise<unknown> {
    const environment: Record<string, string | undefined> = { ...process.env };
    delete environment.NODE_EXTRA_CA_CERTS;
    if (trusted) environment.NODE_EXTRA_CA_CERTS = certificate;
    const child = Bun.spawn([process.execPath, CLIENT, url, allowPrivate ? '1' : '0'], {
      env: environment,
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [output, errors, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    if (code !== 0) throw new Error(`the client exited with ${code}: ${errors}`);
    return JSON.parse(output.trim());
  }

  test.each([
    ['the literal 127.0.0.1', () => `https://127.0.0.1:${port}/mcp`, '127.0.0.1, a loopback address'],
    ['the name localhost', () => `https://localhost:${port}/mcp`, 'a loopback address'],
  ])(
    'with private addresses not allowed, %s is refused and no request arrives',
    async (_what, url, reason) => {
      const before = requests;
      const outcome = await outcomeOf(createGuardedFetch({ allowPrivate: false })(url(), { method: 'POST' }));
      expect(outcome).toStartWith(`permission_denied: Refused to connect to https://`);
      expect(outcome).toContain(reason);
      expect(requests).toBe(before);
    },
  );

  test('a name whose answer passed the policy is refused on the address actually connected', async () => {
    // The resolver's answer is judged first and passes (as a name that rebinds between the lookup and
    // the connection would); the connected socket's address is judged again, and that is refused.
    const judged: string[] = [];
    const judge = (address: string): AddressVerdict => {
      judged.push(address);
      return judged.length === 1 ? { allowed: true } : judgeAddress(address);
    };
    const before = requests;
    const outcome = await outcomeOf(
      createGuardedFetch({ allowPrivate: false, judge })(`https://localhost:${port}/mcp`, {
        method: 'POST',
        body: 'secret',
      }),
    );
    expect(outcome).toBe(
      `permission_denied: Refused to connect to https://localhost:${port}: it resolves to 127.0.0.1, a loopback address. ` +
        'External MCP servers may not reach loopback, link-local or private addresses unless the operator sets MANGO_MCP_ALLOW_PRIVATE=1.',
    );
    expect(judged).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(requests).toBe(before);
  });

  test('with private addresses allowed, it works when the process trusts the certificate, and only then', async () => {
    const before = requests;
    expect(await fetchInChild(`https://localhost:${port}/mcp`, true, true)).toEqual({
      status: 200,
      body: 'tls POST ping',
    });
    expect(requests).toBe(before + 1);
    // Verification is not loosened for the flag: an untrusted certificate still fails.
    expect(await fetchInChild(`https://localhost:${port}/mcp`, true, false)).toEqual({
      error: 'self signed certificate',
    });
    // Trust does not lift the address check.
    const refused = await fetchInChild(`https://localhost:${port}/mcp`, false, true);
    expect(refused).toMatchObject({ classification: 'permission_denied' });
    expect(requests).toBe(before + 1);
  }, 30_000);
});
