/**
 * What a file write costs through Mango next to writing the file directly: a 1 MiB write_file (a new
 * file each call: the held parent, the temp file, fchown/fchmod on its descriptor, renameat2, the
 * ledger) and a 1 MiB upload with overwrite=true through the HTTP app in process (authentication, the
 * workspace check, the same atomic write), against a bare `Bun.write` of the same bytes to a new file.
 * Subjects alternate within each round on the shared machine; the median of all calls is printed with
 * its ratio to the bare write. The last line is `FILE_WRITES_JSON {...}` (medians in ms) for a paired
 * run against another checkout (`bun bench/paired.ts`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openScratchApp } from '../src/server/scratch-app.ts';
import { executeTool } from '../src/tools/execution.ts';
import '../src/tools/builtin/register-builtin-tools.ts';
import { workspaceId } from '../src/workspaces/workspace-id.ts';

const BYTES = 1024 * 1024;
const ROUNDS = Number(process.env.FILE_WRITES_BENCH_ROUNDS ?? 60);
const body = new Uint8Array(BYTES).fill(0x61);
const text = 'a'.repeat(BYTES);

const scratch = mkdtempSync(join(tmpdir(), 'mango-file-writes-bench-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const { app, deps, database, config } = await openScratchApp(scratch);
const created = await deps.users.create('bench');
const home = await deps.workspaces.personalWorkspace(created.user.id);
const { reachable } = await deps.workspaces.reachableSetFor(created.user.id, {
  workingDirectory: null,
  confined: true,
});
const bare = join(scratch, 'bare');
Bun.spawnSync(['mkdir', '-p', bare]);

let sequence = 0;
const subjects: [string, () => Promise<void>][] = [
  ['bare Bun.write', async () => void (await Bun.write(join(bare, `f${sequence++}`), body))],
  [
    'write_file',
    async () => {
      const result = await executeTool(
        'write_file',
        { path: `~/w${sequence++}.txt`, content: text },
        { userId: created.user.id, chatId: 'bench', reachable, dataDirectory: config.dataDirectory },
        { enabled: true, parameters: {} },
      );
      if (!result.ok) throw new Error(`write_file failed: ${JSON.stringify(result.error)}`);
    },
  ],
  [
    'upload (overwrite)',
    async () => {
      const response = await app.handle(
        new Request(
          `http://localhost/api/workspaces/${workspaceId(home)}/files?name=upload.bin&overwrite=true`,
          {
            method: 'POST',
            headers: { authorization: `Bearer ${created.token}` },
            body,
          },
        ),
      );
      if (response.status !== 200 && response.status !== 201)
        throw new Error(`upload: ${await response.text()}`);
    },
  ],
];

const durations = subjects.map(() => [] as number[]);
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [index, [, run]] of subjects.entries()) {
    const started = performance.now();
    await run();
    durations[index]?.push(performance.now() - started);
  }
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const medians = durations.map(median);
console.log(`1 MiB writes: ${ROUNDS} rounds, subjects interleaved; median of all calls`);
for (const [index, [name]] of subjects.entries()) {
  const value = medians[index] ?? Number.NaN;
  console.log(
    `  ${name.padEnd(20)} ${value.toFixed(2)} ms  (${(value / (medians[0] ?? 1)).toFixed(2)}× the bare write)`,
  );
}
console.log(
  `FILE_WRITES_JSON ${JSON.stringify({ bare: medians[0], writeFile: medians[1], upload: medians[2] })}`,
);
await database.close();
