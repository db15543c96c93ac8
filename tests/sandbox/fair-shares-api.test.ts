/**
 * Fair shares under attack through the public HTTP API, on SQLite and PostgreSQL: a real server on
 * loopback with the real sandbox (root, a uid and cgroups per user), whose tenants act only through
 * turns. Two attacking tenants run, one kind at a time, fork loops to their process limit, memory hogs
 * past their share (the server's `MANGO_SANDBOX_USER_MEMORY` set small), and CPU loops on both cores
 * (bounded by `timeout`), each as bash calls in turns started at once. Meanwhile a third tenant's
 * `echo` turn completes, `GET /api/health` answers 200 and a chat is created and renamed. A hog's
 * result names the memory share that stopped it. The attacks end by cancelling their turns or by
 * ending themselves; nothing carrying their marker is left running.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { killEach, liveProcessesWith } from '../helpers/live-processes.ts';
import {
  type RunningTurn,
  startTenantServer,
  type Tenant,
  type TenantServer,
} from '../helpers/tenant-server.ts';
import { BACKENDS } from '../helpers/test-database.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { describeSandbox } from './sandbox-host.ts';
import { removeUserCgroups, sharesUnavailable } from './user-share-cgroups.ts';

const MiB = 1024 ** 2;
/** Small enough that a hog reaches it in a moment, and below the sandbox's /tmp. */
const SHARE = 128 * MiB;
/** Generous: the echo turn takes tens of milliseconds idle. */
const ECHO_BOUND_MS = 3000;

const unavailable = sharesUnavailable(['pids', 'memory', 'cpu']);
if (unavailable) console.warn(`[skip] fair shares through the API: ${unavailable}`);

describeSandbox('fair shares through the API: two tenants attack, a third one is still served', () => {
  describe.each(BACKENDS)('on %s', (backend) => {
    let tenants: TenantServer;
    let mallory: Tenant;
    let trudy: Tenant;
    let carol: Tenant;

    beforeAll(async () => {
      if (unavailable !== undefined) return;
      tenants = await startTenantServer(backend, { env: { MANGO_SANDBOX_USER_MEMORY: String(SHARE) } });
      [mallory, trudy, carol] = await Promise.all(
        ['mallory', 'trudy', 'carol'].map((name) => tenants.addTenant(name)),
      );
    }, 30_000);
    afterAll(async () => {
      await tenants?.stop();
      removeUserCgroups([mallory, trudy, carol].flatMap((tenant) => (tenant ? [tenant.id] : [])));
    }, 30_000);

    /** Carol's echo turn, `GET /api/health`, and a chat created and renamed, all at once. */
    const carolIsServed = async () => {
      const startedAt = performance.now();
      const [echo, health, renamed] = await Promise.all([
        carol.bash('echo still here').then((outcome) => ({ outcome, ms: performance.now() - startedAt })),
        fetch(`${tenants.server.url}/api/health`).then(async (response) => ({
          status: response.status,
          body: await response.json(),
        })),
        (async () => {
          const created = await carol.api('POST', '/api/chats', {
            provider: 'openai-compatible',
            model: 'm',
          });
          const { id } = (await created.json()) as { id: string };
          const patched = await carol.api('PATCH', `/api/chats/${id}`, { title: 'under attack' });
          return { created: created.status, patched: patched.status, title: (await patched.json()).title };
        })(),
      ]);
      expect(echo.outcome).toEqual({ exitCode: 0, signal: null, stdout: 'still here\n', stderr: '' });
      expect(echo.ms).toBeLessThan(ECHO_BOUND_MS);
      expect(health).toEqual({ status: 200, body: { status: 'ok', database: 'reachable' } });
      expect(renamed).toEqual({ created: 201, patched: 200, title: 'under attack' });
    };

    /** Waits until nothing carrying `marker` runs (killing what is left when it does not). */
    const expectNothingLeft = async (marker: string) => {
      const gone = await waitUntil(async () => (await liveProcessesWith(marker)).length === 0, 10_000);
      if (!gone) killEach(await liveProcessesWith(marker));
      expect(gone).toBe(true);
    };

    test.skipIf(unavailable !== undefined)(
      'fork loops to the limit: carol is served; an attacker’s next call fails at once; cancel ends them',
      async () => {
        const marker = `fork-attack-${crypto.randomUUID()}`;
        const flag = `${marker}.flag`;
        // The extra argument only puts the marker on every forked perl's command line. At the limit the
        // loop flags it and keeps forking every few milliseconds, as a fork bomb does: a slot another of
        // the user's processes frees (a file worker that could not make a thread and ended) is taken
        // again at once, so the limit holds while the attacker's next call is made.
        const forkLoop =
          `perl -e 'my $f; while (1) { my $p = fork(); if (!defined $p) { open($f, ">", "${flag}") unless $f; ` +
          `select(undef, undef, undef, 0.005); next } if ($p == 0) { sleep 60; exit 0 } }' ${marker}`;
        const attacks: [Tenant, RunningTurn][] = [];
        try {
          for (const turn of await Promise.all(
            [mallory, trudy].map((tenant) => tenant.startBash(forkLoop)),
          )) {
            attacks.push([attacks.length === 0 ? mallory : trudy, turn]);
          }
          const flagged = () => [mallory, trudy].every((tenant) => existsSync(join(tenant.workspace, flag)));
          expect(await waitUntil(flagged, 20_000)).toBe(true);
          await carolIsServed();
          const startedAt = performance.now();
          const refused = await mallory.call('bash', { command: 'echo hi' });
          expect(refused).toMatchObject({
            ok: false,
            error: {
              // The command, or the file work that resolves its directory first (in the user's file
              // worker, which cannot make a thread either), could not start for the user's limit.
              message: expect.stringMatching(
                /(The command could not start|The file work of this call could not run): this user's processes are at their limit \(512 per user/,
              ),
            },
          });
          expect(performance.now() - startedAt).toBeLessThan(ECHO_BOUND_MS);
        } finally {
          for (const [tenant, { chatId }] of attacks) await tenant.api('POST', `/api/chats/${chatId}/cancel`);
        }
        for (const [, { events }] of attacks) {
          expect((await events).at(-1)).toMatchObject({ type: 'done', reason: 'cancelled' });
        }
        await expectNothingLeft(marker);
      },
      60_000,
    );

    test.skipIf(unavailable !== undefined)(
      'memory hogs past the share: each is killed and says so; carol’s echo in the same second runs',
      async () => {
        const marker = `memory-attack-${crypto.randomUUID()}`;
        const hog = `perl -e '$x = "x" x (1024**3); print "survived\\n"' ${marker}`;
        const startedAt = performance.now();
        const [malloryHog, trudyHog] = await Promise.all([
          mallory.call('bash', { command: hog }),
          trudy.call('bash', { command: hog }),
          carolIsServed(),
        ]);
        for (const result of [malloryHog, trudyHog]) {
          expect(result).toMatchObject({
            ok: true,
            result: {
              stdout: '',
              termination: { kind: 'memory', limitBytes: SHARE, signal: 'SIGKILL' },
              notice: expect.stringContaining(
                "this user's memory share ran out (128 MiB for all their commands",
              ),
            },
          });
        }
        expect(performance.now() - startedAt).toBeLessThan(20_000);
        await expectNothingLeft(marker);
      },
      60_000,
    );

    test.skipIf(unavailable !== undefined)(
      'CPU loops on both cores: carol is served while they run; they end by their own timeout',
      async () => {
        const marker = `cpu-attack-${crypto.randomUUID()}`;
        const flag = `${marker}.flag`;
        const loop = `timeout 4 sh -c 'while :; do :; done' ${marker}`;
        const attack = `${loop} & ${loop} & touch ${flag}; wait`;
        const turns = await Promise.all([mallory, trudy].map((tenant) => tenant.startBash(attack)));
        const flagged = () => [mallory, trudy].every((tenant) => existsSync(join(tenant.workspace, flag)));
        expect(await waitUntil(flagged, 20_000)).toBe(true);
        await carolIsServed();
        // The loops were still running when carol was served: this measured her under attack.
        expect((await liveProcessesWith(marker)).length).toBeGreaterThanOrEqual(4);
        for (const { events } of turns) {
          expect((await events).find((event) => event.type === 'tool_result')).toMatchObject({
            ok: true,
            result: { exitCode: 0, stdout: '', termination: { kind: 'exited' } },
          });
        }
        await expectNothingLeft(marker);
      },
      60_000,
    );
  });
});
