/**
 * What one tenant's commands leave cannot be read, written, signalled or listed by another's, row by
 * row, through the API of a real server (SQLite and PostgreSQL, the real bubblewrap sandbox, the
 * server as root, so each user has a uid of their own).
 *
 * alice leaves a file and a folder in her workspace, an upload, the state directory of a stdio MCP
 * server (server-memory, with its graph), and a call still running, with a file in that call's /tmp.
 * Each row is one command of bob's, run twice: in his sandbox through the API (where none of it is
 * even there), and as bob's uid with the sandbox group on the host, outside any sandbox (what his
 * processes would meet past the mounts: the kernel refuses, since everything is alice's uid's). On the
 * host, the two users' commands run as different uids, the ones the database gave them, and
 * everything alice left is her uid's. Last, the host side: `nobody` can neither list nor enter the
 * workspaces directory, any workspace or the MCP state, nor list the data directory or read the
 * database; the workspaces directory is 0710 root and the sandbox group, each personal workspace 0700
 * its user's uid, the data directory 0700 root's.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSandboxIdRepository } from '../../src/db/database-sandbox-id-repository.ts';
import { getUserImageDirectoryName } from '../../src/images/image-files.ts';
import { mcpStateDirectoryIn } from '../../src/mcp-client/mcp-state-directory.ts';
import { liveProcessesWith } from '../helpers/live-processes.ts';
import {
  type HostOutcome,
  NOBODY,
  runAsHostAccount,
  type ShellOutcome,
  startTenantServer,
  type Tenant,
  type TenantServer,
} from '../helpers/tenant-server.ts';
import { BACKENDS } from '../helpers/test-database.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { describeSandbox } from './sandbox-host.ts';

/** The sandbox group (`MANGO_SANDBOX_UID_BASE`'s default): what passes the workspaces directory. */
const SANDBOX_GROUP = 1_900_000_000;
const NODE_MODULES = realpathSync(join(import.meta.dir, '..', '..', 'node_modules'));
const MEMORY_SERVER = {
  command: 'node',
  args: [join(NODE_MODULES, '@modelcontextprotocol/server-memory/dist/index.js')],
  stateVariable: 'MEMORY_FILE_PATH',
  stateFile: 'memory.jsonl',
  packageDirectory: NODE_MODULES,
};

interface Row {
  target: string;
  action: 'read' | 'write' | 'list' | 'signal';
  command: string;
  inSandbox: HostOutcome;
  /** Absent where the host grants it to every account anyway (listing processes). */
  onHost?: HostOutcome;
}

const failed = (exitCode: number, stderr: string): HostOutcome => ({ exitCode, stdout: '', stderr });
const bashSays = (message: string) => failed(1, `/usr/bin/bash: line 1: ${message}\n`);
const withoutSignal = ({ exitCode, stdout, stderr }: ShellOutcome) => ({ exitCode, stdout, stderr });

function ownerOf(path: string) {
  const stats = statSync(path);
  return { mode: stats.mode & 0o7777, uid: stats.uid, gid: stats.gid };
}

/** The uids of a process, as the host's /proc says (real, effective, saved, filesystem). */
function uidsOf(pid: number): string | undefined {
  return /^Uid:\s+(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
}

describeSandbox('one tenant’s leftovers, against another tenant', () => {
  describe.each(BACKENDS)('on %s', (backend) => {
    let tenants: TenantServer;
    let alice: Tenant;
    let bob: Tenant;

    beforeAll(async () => {
      tenants = await startTenantServer(backend, { mcpServers: { memory: MEMORY_SERVER } });
      alice = await tenants.addTenant('alice');
      bob = await tenants.addTenant('bob');
    }, 30_000);
    afterAll(() => tenants?.stop(), 30_000);

    test('every row: absent in bob’s sandbox, refused to bob’s uid on the host', async () => {
      const written = await alice.bash(
        "mkdir a-folder && printf 'alice-file\\n' > a-file.txt && printf 'alice-inner\\n' > a-folder/inner.txt && id -u",
      );
      expect(written).toMatchObject({ exitCode: 0, stderr: '' });
      const aliceUid = Number(written.stdout);
      const bobWrote = await bob.bash("printf 'bob-file\\n' > b-file.txt && id -u");
      expect(bobWrote).toMatchObject({ exitCode: 0, stderr: '' });
      const bobUid = Number(bobWrote.stdout);
      const ids = new DatabaseSandboxIdRepository(tenants.server.database);
      expect({ alice: aliceUid, bob: bobUid }).toEqual({
        alice: (await ids.find('user', alice.id))!,
        bob: (await ids.find('user', bob.id))!,
      });
      expect(aliceUid).not.toBe(bobUid);

      const uploaded = await alice.api(
        'POST',
        `/api/workspaces/${alice.workspaceId}/files?name=a-upload.txt`,
        'alice-upload\n',
      );
      expect(uploaded.status).toBe(201);
      const setting = await alice.api('PUT', '/api/settings/tools/mcp__memory__create_entities', {
        parameters: { approval: 'never' },
      });
      expect(setting.status).toBe(200);
      const remembered = await alice.call('mcp__memory__create_entities', {
        entities: [{ name: 'AliceOnly', entityType: 'secret', observations: ['alice-memory'] }],
      });
      expect(remembered.ok).toBe(true);
      const states = mcpStateDirectoryIn(tenants.workspacesDirectory);
      const state = join(states, getUserImageDirectoryName(alice.id), 'memory');

      // A call of alice's that is still running while bob tries: its sleep is the process to signal.
      const marker = `25.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
      const running = await alice.startBash(`printf 'alice-tmp\\n' > /tmp/a-tmp.txt && sleep ${marker}`);
      let pid = 0;
      await waitUntil(async () => {
        for (const candidate of await liveProcessesWith(marker)) {
          // The interpreter's command line holds the marker too; the sleep is the one that is only it.
          const commandLine = await Bun.file(`/proc/${candidate}/cmdline`)
            .text()
            .catch(() => '');
          if (commandLine === `sleep\0${marker}\0`) pid = candidate;
        }
        return pid !== 0;
      }, 15_000);
      expect(pid).not.toBe(0);

      // What alice left is her uid's, her running call included.
      const mine = (mode: number) => ({ mode, uid: aliceUid, gid: aliceUid });
      expect({
        file: ownerOf(join(alice.workspace, 'a-file.txt')),
        folder: ownerOf(join(alice.workspace, 'a-folder')),
        upload: ownerOf(join(alice.workspace, 'a-upload.txt')),
        stateDirectory: ownerOf(state),
        stateFile: ownerOf(join(state, 'memory.jsonl')),
        bobsFile: ownerOf(join(bob.workspace, 'b-file.txt')),
        runningSleep: uidsOf(pid),
      }).toEqual({
        file: mine(0o664),
        folder: mine(0o775),
        upload: mine(0o644),
        stateDirectory: mine(0o700),
        stateFile: mine(0o644),
        bobsFile: { mode: 0o664, uid: bobUid, gid: bobUid },
        runningSleep: [aliceUid, aliceUid, aliceUid, aliceUid].join('\t'),
      });

      const workspace = alice.workspace;
      const workspaces = tenants.workspacesDirectory;
      const rows: Row[] = [
        {
          target: 'alice’s file',
          action: 'read',
          command: `cat ${workspace}/a-file.txt`,
          inSandbox: failed(1, `cat: ${workspace}/a-file.txt: No such file or directory\n`),
          onHost: failed(1, `cat: ${workspace}/a-file.txt: Permission denied\n`),
        },
        {
          target: 'alice’s file',
          action: 'write',
          command: `printf bob >> ${workspace}/a-file.txt`,
          inSandbox: bashSays(`${workspace}/a-file.txt: No such file or directory`),
          onHost: bashSays(`${workspace}/a-file.txt: Permission denied`),
        },
        {
          target: 'alice’s workspace',
          action: 'list',
          command: `ls ${workspace}`,
          inSandbox: failed(2, `ls: cannot access '${workspace}': No such file or directory\n`),
          onHost: failed(2, `ls: cannot open directory '${workspace}': Permission denied\n`),
        },
        {
          target: 'alice’s folder',
          action: 'list',
          command: `ls ${workspace}/a-folder`,
          inSandbox: failed(2, `ls: cannot access '${workspace}/a-folder': No such file or directory\n`),
          onHost: failed(2, `ls: cannot access '${workspace}/a-folder': Permission denied\n`),
        },
        {
          target: 'alice’s folder',
          action: 'write',
          command: `touch ${workspace}/a-folder/from-bob`,
          inSandbox: failed(
            1,
            `touch: cannot touch '${workspace}/a-folder/from-bob': No such file or directory\n`,
          ),
          onHost: failed(1, `touch: cannot touch '${workspace}/a-folder/from-bob': Permission denied\n`),
        },
        {
          target: 'alice’s upload',
          action: 'read',
          command: `cat ${workspace}/a-upload.txt`,
          inSandbox: failed(1, `cat: ${workspace}/a-upload.txt: No such file or directory\n`),
          onHost: failed(1, `cat: ${workspace}/a-upload.txt: Permission denied\n`),
        },
        {
          target: 'alice’s upload',
          action: 'write',
          command: `printf bob > ${workspace}/a-upload.txt`,
          inSandbox: bashSays(`${workspace}/a-upload.txt: No such file or directory`),
          onHost: bashSays(`${workspace}/a-upload.txt: Permission denied`),
        },
        {
          target: 'the workspaces directory',
          action: 'list',
          command: `ls -a ${workspaces}`,
          // Bob's sandbox holds his own workspace alone, and no MCP state.
          inSandbox: { exitCode: 0, stdout: `.\n..\n${bob.id}\n`, stderr: '' },
          onHost: failed(2, `ls: cannot open directory '${workspaces}': Permission denied\n`),
        },
        {
          target: 'the MCP state directories',
          action: 'list',
          command: `ls ${states}`,
          inSandbox: failed(2, `ls: cannot access '${states}': No such file or directory\n`),
          onHost: failed(2, `ls: cannot open directory '${states}': Permission denied\n`),
        },
        {
          target: 'alice’s running process',
          action: 'signal',
          command: `kill -0 ${pid}`,
          inSandbox: bashSays(`kill: (${pid}) - No such process`),
          onHost: bashSays(`kill: (${pid}) - Operation not permitted`),
        },
        {
          target: 'alice’s running process',
          action: 'signal',
          command: `kill -9 ${pid}`,
          inSandbox: bashSays(`kill: (${pid}) - No such process`),
          onHost: bashSays(`kill: (${pid}) - Operation not permitted`),
        },
        {
          target: 'alice’s running process',
          action: 'read',
          command: `cat /proc/${pid}/environ`,
          inSandbox: failed(1, `cat: /proc/${pid}/environ: No such file or directory\n`),
          onHost: failed(1, `cat: /proc/${pid}/environ: Permission denied\n`),
        },
        {
          target: 'alice’s running processes',
          action: 'list',
          command: "ps -e -o uid= | tr -d ' ' | sort -u",
          inSandbox: { exitCode: 0, stdout: `${bobUid}\n`, stderr: '' },
        },
        {
          target: 'alice’s /tmp file',
          action: 'read',
          command: 'cat /tmp/a-tmp.txt',
          inSandbox: failed(1, 'cat: /tmp/a-tmp.txt: No such file or directory\n'),
          onHost: failed(1, 'cat: /tmp/a-tmp.txt: No such file or directory\n'),
        },
        {
          target: 'alice’s /tmp file',
          action: 'read',
          command: `cat /proc/${pid}/root/tmp/a-tmp.txt`,
          inSandbox: failed(1, `cat: /proc/${pid}/root/tmp/a-tmp.txt: No such file or directory\n`),
          onHost: failed(1, `cat: /proc/${pid}/root/tmp/a-tmp.txt: Permission denied\n`),
        },
        {
          target: 'alice’s /tmp file',
          action: 'write',
          command: `printf bob > /proc/${pid}/root/tmp/a-tmp.txt`,
          inSandbox: bashSays(`/proc/${pid}/root/tmp/a-tmp.txt: No such file or directory`),
          onHost: bashSays(`/proc/${pid}/root/tmp/a-tmp.txt: Permission denied`),
        },
        {
          target: 'alice’s MCP state',
          action: 'read',
          command: `cat ${state}/memory.jsonl`,
          inSandbox: failed(1, `cat: ${state}/memory.jsonl: No such file or directory\n`),
          onHost: failed(1, `cat: ${state}/memory.jsonl: Permission denied\n`),
        },
        {
          target: 'alice’s MCP state',
          action: 'list',
          command: `ls ${state}`,
          inSandbox: failed(2, `ls: cannot access '${state}': No such file or directory\n`),
          onHost: failed(2, `ls: cannot open directory '${state}': Permission denied\n`),
        },
        {
          target: 'alice’s MCP state',
          action: 'write',
          command: `printf bob > ${state}/memory.jsonl`,
          inSandbox: bashSays(`${state}/memory.jsonl: No such file or directory`),
          onHost: bashSays(`${state}/memory.jsonl: Permission denied`),
        },
      ];
      // What bob's sandboxed processes are, without the sandbox: his uid and the sandbox group.
      const bobOnHost = { uid: bobUid, gid: bobUid, groups: [SANDBOX_GROUP] };
      const outcomes = [];
      for (const row of rows) {
        outcomes.push({
          target: row.target,
          action: row.action,
          command: row.command,
          inSandbox: withoutSignal(await bob.bash(row.command)),
          onHost:
            row.onHost === undefined
              ? undefined
              : runAsHostAccount(bobOnHost, ['/usr/bin/bash', '-c', row.command]),
        });
      }
      expect(outcomes).toEqual(
        rows.map(({ target, action, command, inSandbox, onHost }) => ({
          target,
          action,
          command,
          inSandbox,
          onHost,
        })),
      );

      // Nothing of alice's changed, and her call was still running when bob was done.
      expect({
        file: readFileSync(join(workspace, 'a-file.txt'), 'utf8'),
        folder: readdirSync(join(workspace, 'a-folder')),
        upload: readFileSync(join(workspace, 'a-upload.txt'), 'utf8'),
        state: readFileSync(join(state, 'memory.jsonl'), 'utf8'),
        runningSleep: uidsOf(pid),
      }).toEqual({
        file: 'alice-file\n',
        folder: ['inner.txt'],
        upload: 'alice-upload\n',
        state: '{"type":"entity","name":"AliceOnly","entityType":"secret","observations":["alice-memory"]}',
        runningSleep: [aliceUid, aliceUid, aliceUid, aliceUid].join('\t'),
      });
      const cancelled = await alice.api('POST', `/api/chats/${running.chatId}/cancel`);
      expect(cancelled.status).toBe(200);
      expect((await running.events).at(-1)).toEqual({
        type: 'done',
        reason: 'cancelled',
        message: 'The turn was cancelled.',
      });
      expect(await liveProcessesWith(marker)).toEqual([]);
    }, 60_000);

    test('host side: nobody neither lists nor enters the workspaces; their owners and modes', async () => {
      const workspaces = tenants.workspacesDirectory;
      const states = mcpStateDirectoryIn(workspaces);
      // On PostgreSQL there is no such file: the directory refuses before its name is looked up.
      const database = join(tenants.dataDirectory, 'mango.db');
      const uidOf = async (tenant: Tenant) => Number((await tenant.bash('id -u')).stdout);
      const [aliceUid, bobUid] = [await uidOf(alice), await uidOf(bob)];
      expect({
        data: ownerOf(tenants.dataDirectory),
        workspaces: ownerOf(workspaces),
        alice: ownerOf(alice.workspace),
        bob: ownerOf(bob.workspace),
      }).toEqual({
        data: { mode: 0o700, uid: 0, gid: 0 },
        workspaces: { mode: 0o710, uid: 0, gid: SANDBOX_GROUP },
        alice: { mode: 0o700, uid: aliceUid, gid: aliceUid },
        bob: { mode: 0o700, uid: bobUid, gid: bobUid },
      });
      const asNobody = (command: string) => runAsHostAccount(NOBODY, ['/usr/bin/bash', '-c', command]);
      expect({
        listWorkspaces: asNobody(`ls ${workspaces}`),
        enterWorkspaces: asNobody(`cd ${workspaces}`),
        listAlice: asNobody(`ls ${alice.workspace}`),
        enterAlice: asNobody(`cd ${alice.workspace}`),
        listBob: asNobody(`ls ${bob.workspace}`),
        enterBob: asNobody(`cd ${bob.workspace}`),
        listMcpStates: asNobody(`ls ${states}`),
        listData: asNobody(`ls ${tenants.dataDirectory}`),
        readDatabase: asNobody(`cat ${database}`),
      }).toEqual({
        listWorkspaces: failed(2, `ls: cannot open directory '${workspaces}': Permission denied\n`),
        enterWorkspaces: bashSays(`cd: ${workspaces}: Permission denied`),
        listAlice: failed(2, `ls: cannot access '${alice.workspace}': Permission denied\n`),
        enterAlice: bashSays(`cd: ${alice.workspace}: Permission denied`),
        listBob: failed(2, `ls: cannot access '${bob.workspace}': Permission denied\n`),
        enterBob: bashSays(`cd: ${bob.workspace}: Permission denied`),
        listMcpStates: failed(2, `ls: cannot access '${states}': Permission denied\n`),
        listData: failed(2, `ls: cannot open directory '${tenants.dataDirectory}': Permission denied\n`),
        readDatabase: failed(1, `cat: ${database}: Permission denied\n`),
      });
    }, 60_000);
  });
});
