import { afterAll, beforeAll, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ETC_ALLOWLIST } from '../../src/sandbox/bubblewrap-mount-plan.ts';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { buildShellTool } from '../../src/tools/builtin/build-shell-tool.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { ShellCommandResult } from '../../src/tools/shell/run-shell-command.ts';
import { liveProcessesWith } from '../helpers/live-processes.ts';
import '../../src/tools/builtin/read-file.ts';
import {
  createSandboxLayout,
  createTestSandbox,
  describeSandbox,
  type SandboxLayout,
} from './sandbox-host.ts';

/** A dozen secrets with names a name-based filter would miss, set in the server's environment. */
const SECRETS: Record<string, string> = {
  DB_PASS: 'secret-db-pass-1',
  SMTP_PASS: 'secret-smtp-2',
  MYSQL_PWD: 'secret-mysql-3',
  SLACK_WEBHOOK_URL: 'https://hooks.example.com/secret-slack-4',
  DATABASE_URL: 'postgres://mango:secret/pw-5@127.0.0.1/mango',
  ANTHROPIC_API_KEY: 'secret-anthropic-6',
  AWS_SECRET_ACCESS_KEY: 'secret-aws-7',
  OPENAI_API_KEY: 'secret-openai-8',
  GH_TOKEN: 'secret-github-9',
  SENTRY_DSN: 'https://secret-sentry-10@o1.ingest.example.com/1',
  MANGO_ADMIN_SEED: 'secret-seed-11',
  REDIS_URL: 'redis://:secret-redis-12@127.0.0.1:6379',
};

describeSandbox('the bubblewrap shell sandbox, with real commands', () => {
  let sandbox: BubblewrapSandbox;
  let layout: SandboxLayout;
  const lines: string[] = [];
  const registry = new ToolRegistry();
  let api: ReturnType<typeof Bun.serve>;

  beforeAll(async () => {
    Object.assign(process.env, SECRETS);
    sandbox = createTestSandbox({}, lines);
    layout = await createSandboxLayout(sandbox);
    registry.register(buildShellTool('bash', { sandbox: () => sandbox }));
    const readFile = (await import('../../src/tools/registry.ts')).getTool('read_file');
    if (readFile) registry.register(readFile);
    api = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('api') });
  });
  afterAll(() => {
    for (const name of Object.keys(SECRETS)) delete process.env[name];
    api.stop(true);
    sandbox.dispose();
    layout.remove();
  });

  async function run(command: string, parameters: Record<string, unknown> = {}): Promise<ShellCommandResult> {
    const outcome = await executeTool(
      'bash',
      { command },
      { userId: 'alice', chatId: 'chat-1', reachable: layout.reachable },
      { enabled: true, parameters },
      { registry },
    );
    if (!outcome.ok) throw new Error(`expected a result, got ${JSON.stringify(outcome.error)}`);
    return outcome.result as ShellCommandResult;
  }

  /** `present` or `absent` for each path, as the sandbox sees it (readable, listable). */
  async function visibility(paths: string[]): Promise<string> {
    const checks = paths.map(
      (path) =>
        `if cat '${path}' >/dev/null 2>&1 || ls '${path}' >/dev/null 2>&1; then echo "present ${path}"; else echo "absent ${path}"; fi`,
    );
    return (await run(checks.join('\n'))).stdout;
  }

  test('the database, another workspace, the server home, the installation directory and a planted file cannot be read', async () => {
    const paths = [
      join(layout.data, 'mango.db'),
      layout.data,
      join(layout.bob, 'diary.txt'),
      layout.bob,
      homedir(),
      join(process.cwd(), 'package.json'),
      process.cwd(),
      layout.planted,
      layout.elsewhere,
    ];
    expect(await visibility(paths)).toBe(paths.map((path) => `absent ${path}\n`).join(''));
    // The reachable roots are there, at the same paths.
    expect(await visibility([join(layout.projects, 'readme.txt'), layout.alice])).toBe(
      `present ${join(layout.projects, 'readme.txt')}\npresent ${layout.alice}\n`,
    );
  });

  test('mountinfo holds exactly the expected mounts', async () => {
    const { stdout } = await run("awk '{print $5}' /proc/self/mountinfo");
    const etc = ETC_ALLOWLIST.filter((path) => existsSync(path));
    const expected = [
      '/',
      '/usr',
      '/proc',
      '/dev',
      ...['null', 'zero', 'full', 'random', 'urandom', 'tty', 'pts', 'shm'].map((name) => `/dev/${name}`),
      // The waiter's script, read-only (sandbox-waiter.ts).
      '/dev/mango-sandbox-waiter.pl',
      '/tmp',
      ...etc,
      '/etc/passwd',
      '/etc/group',
      '/home/sandbox',
      layout.alice,
      layout.projects,
      layout.data,
    ];
    expect(stdout.trim().split('\n').sort()).toEqual(expected.sort());
  });

  test('the waiter is its own Perl file, mounted read-only: a command can read it but not change it', async () => {
    const { stdout } = await run(
      'head -1 /dev/mango-sandbox-waiter.pl; echo x >> /dev/mango-sandbox-waiter.pl 2>/dev/null && echo changed || echo unchanged',
    );
    expect(stdout).toBe(
      '# PID 1 of every shell sandbox (see sandbox-waiter.ts for what it guarantees and why).\nunchanged\n',
    );
  });

  test('no privilege: uid is the sandbox uid (not 0), CapEff 0, no_new_privs; mount, mknod and unshare -U fail', async () => {
    const { stdout } = await run(
      [
        'id -u',
        "grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs):' /proc/self/status",
        'mount -t tmpfs none /tmp >/dev/null 2>&1 && echo mount-ok || echo mount-failed',
        'mknod /tmp/device c 1 3 >/dev/null 2>&1 && echo mknod-ok || echo mknod-failed',
        'unshare -U true >/dev/null 2>&1 && echo unshare-ok || echo unshare-failed',
      ].join('\n'),
    );
    expect((await sandbox.identityFor('alice')).uid).not.toBe(0);
    expect(stdout).toBe(
      `${(await sandbox.identityFor('alice')).uid}\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nNoNewPrivs:\t1\nmount-failed\nmknod-failed\nunshare-failed\n`,
    );
  });

  test('writing outside the working directory fails and leaves nothing; /tmp is private', async () => {
    const targets = [
      join(layout.projects, 'new.txt'),
      join(layout.bob, 'new.txt'),
      join(layout.workspaces, 'new.txt'),
      '/usr/new.txt',
      '/new.txt',
      '/etc/new.txt',
      join(layout.data, 'new.txt'),
      '/dev/new.txt',
      '/proc/new.txt',
    ];
    const marker = `private-${crypto.randomUUID()}`;
    const { stdout } = await run(
      [
        ...targets.map(
          (path) => `echo x > '${path}' 2>/dev/null && echo "wrote ${path}" || echo "refused ${path}"`,
        ),
        `echo x > /tmp/${marker} && echo tmp-ok`,
      ].join('\n'),
    );
    expect(stdout).toBe(`${targets.map((path) => `refused ${path}\n`).join('')}tmp-ok\n`);
    for (const path of targets) expect(existsSync(path)).toBe(false);
    expect(existsSync(`/tmp/${marker}`)).toBe(false);
  });

  test('env, /proc/$PPID/environ and /proc/1/environ hold none of the server secrets', async () => {
    const { stdout, exitCode } = await run(
      "env; tr '\\0' '\\n' < /proc/$PPID/environ; tr '\\0' '\\n' < /proc/1/environ",
    );
    expect(exitCode).toBe(0);
    expect(stdout).toContain('HOME=/home/sandbox\n');
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(stdout).not.toContain(`${name}=`);
      expect(stdout).not.toContain(value);
    }
  });

  test('no network: PostgreSQL on 127.0.0.1:5432 and the API port are unreachable (the host reaches the API)', async () => {
    expect(await (await fetch(`http://127.0.0.1:${api.port}/`)).text()).toBe('api');
    const probe = (port: number) =>
      `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo "open ${port}" || echo "closed ${port}"`;
    const { stdout } = await run(`${probe(5432)}\n${probe(api.port ?? 0)}`);
    expect(stdout).toBe(`closed 5432\nclosed ${api.port}\n`);
  });

  test('a setsid job is gone after the call', async () => {
    const marker = `300.${Math.floor(Math.random() * 1e6)}`;
    const result = await run(
      `setsid sleep ${marker} > /dev/null 2>&1 & nohup sleep ${marker} > /dev/null 2>&1 & echo started`,
    );
    expect(result.stdout).toBe('started\n');
    expect(await liveProcessesWith(`sleep\0${marker}`)).toEqual([]);
  });

  test('kill -9 $$ is signalled SIGKILL; exit 137 is an exit', async () => {
    const killed = await run('kill -9 $$');
    expect([killed.termination, killed.exitCode, killed.signal]).toEqual([
      { kind: 'signalled', signal: 'SIGKILL' },
      null,
      'SIGKILL',
    ]);
    const exited = await run('exit 137');
    expect([exited.termination, exited.exitCode, exited.signal]).toEqual([{ kind: 'exited' }, 137, null]);
    // The reporter is the namespace's PID 1: the command cannot kill it to lose or change the record.
    const reporterKilled = await run('kill -9 1; kill -TERM $PPID; echo "parent=$PPID"; exit 3');
    expect([reporterKilled.stdout, reporterKilled.termination, reporterKilled.exitCode]).toEqual([
      'parent=1\n',
      { kind: 'exited' },
      3,
    ]);
  });

  test('what a command writes in the working directory stays, belongs to the sandbox user and read_file reads it', async () => {
    const result = await run("printf 'hello from the sandbox\\n' > note.txt && mkdir -p out && echo done");
    expect(result.stdout).toBe('done\n');
    const note = join(layout.alice, 'note.txt');
    expect(statSync(note).uid).toBe((await sandbox.identityFor('alice')).uid);
    const outcome = await executeTool(
      'read_file',
      { path: note },
      { userId: 'alice', reachable: layout.reachable },
      undefined,
      { registry },
    );
    expect(outcome.ok).toBe(true);
    expect(JSON.stringify(outcome)).toContain('hello from the sandbox');
  });

  test('a denied path inside the working directory is covered and unreadable', async () => {
    const secret = join(layout.alice, 'private');
    mkdirSync(secret, { recursive: true });
    writeFileSync(join(secret, 'key.txt'), 'denied-content\n');
    writeFileSync(join(layout.alice, 'token.txt'), 'denied-token\n');
    const { stdout } = await run(
      `cat private/key.txt 2>/dev/null || echo no-key; ls private 2>/dev/null || echo no-list; cat token.txt 2>/dev/null || echo no-token; echo x > private/new 2>/dev/null || echo no-write`,
      {
        deniedPaths: [
          { path: 'private', enabled: true },
          { path: join(layout.alice, 'token.txt'), enabled: true },
        ],
      },
    );
    expect(stdout).toBe('no-key\nno-list\nno-token\nno-write\n');
    expect(readdirSync(secret)).toEqual(['key.txt']);
  });

  test('a timeout kills the sandbox with everything in it', async () => {
    const marker = `301.${Math.floor(Math.random() * 1e6)}`;
    const outcome = await executeTool(
      'bash',
      { command: `setsid sleep ${marker} & sleep ${marker}` },
      { userId: 'alice', reachable: layout.reachable },
      { enabled: true, parameters: { timeoutSeconds: 5 } },
      { registry },
    );
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'timeout' } });
    expect(await liveProcessesWith(`sleep\0${marker}`)).toEqual([]);
  }, 15_000);

  test.skipIf(Bun.which('zsh') === null)('zsh runs in the same sandbox', async () => {
    const zshRegistry = new ToolRegistry();
    zshRegistry.register(buildShellTool('zsh', { sandbox: () => sandbox }));
    const outcome = await executeTool(
      'zsh',
      { command: 'print -r -- "$(id -u) $PWD"; test -e /etc/shadow && echo shadow || echo no-shadow' },
      { userId: 'alice', reachable: layout.reachable },
      { enabled: true },
      { registry: zshRegistry },
    );
    if (!outcome.ok) throw new Error(outcome.error.message);
    expect((outcome.result as ShellCommandResult).stdout).toBe(
      `${(await sandbox.identityFor('alice')).uid} ${layout.alice}\nno-shadow\n`,
    );
  });

  test('each command is logged as one JSON line with user, chat, command and outcome', async () => {
    lines.length = 0;
    await run('echo logged');
    expect(lines.length).toBe(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      event: 'shell_command',
      sandbox: 'bubblewrap',
      user: 'alice',
      chat: 'chat-1',
      shell: 'bash',
      command: 'echo logged',
      cwd: layout.alice,
      outcome: 'exited',
      exitCode: 0,
      signal: null,
    });
  });
});
