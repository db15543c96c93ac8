/**
 * The root server names nothing inside a workspace while it answers the files routes: with file
 * workers, a round of folder listings, an upload, downloads, a 404 and a message's attachments checked is done in alice's worker, so a
 * trace of the server's own threads (server-trace.ts) shows no open, stat, link, directory or rename
 * call naming a path inside her workspace, nor one made through a descriptor of one. (The request's
 * scope still locates the workspace's own directory, a path of the server's, by name.) The same round
 * done by the server itself is the control: its trace names her files, so the test can tell.
 */
import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { startServerProcess } from '../../file-worker/file-worker-server-process.ts';
import { strace, traceNamesDuring } from '../../helpers/server-trace.ts';
import { describeSandbox } from '../../sandbox/sandbox-host.ts';

const FIXTURE = join(import.meta.dir, '__fixtures__', 'files-routes-server.ts');
const traced = strace !== null || process.env.MANGO_REQUIRE_SANDBOX === '1' ? test : test.skip;

/** The round's answers, and the server's calls naming a path inside alice's workspace, in `mode`. */
async function roundTrace(
  mode: 'worker' | 'in-process',
): Promise<{ answers: string[]; lines: string[]; home: string }> {
  const server = startServerProcess(mode, FIXTURE);
  try {
    const ready = await server.ready();
    expect(ready.ready).toBe(true);
    const { result, lines } = await traceNamesDuring(ready.pid, `${ready.alice}/`, () => server.turn());
    await server.quit();
    return { answers: result, lines, home: ready.alice };
  } finally {
    server.cleanUp();
  }
}

/**
 * Each answer's status, and the bodies that do not carry modification times; the attachments' answer
 * names real paths, `home` (alice's workspace) written `~` there.
 */
function summary(answers: string[], home: string): unknown[] {
  return answers.map((answer, index) => {
    const status = answer.slice(0, 3);
    if (index === 6) return answer.replaceAll(home, '~');
    return [0, 3].includes(index) ? status : answer;
  });
}

const ROUND = [
  '200',
  '201 {"workspace":"WS","path":"notes/today-1.txt","size":19,"replaced":false}',
  '200 written in round 1\n',
  '200',
  '200 first\nsecond\n',
  '404 {"error":"Nothing exists at \\"missing.txt\\" in this workspace.","code":"not_found"}',
  '[{"path":"~/plan.txt"},{"path":"~/notes/today-1.txt"}]',
  'Attachment 1 ("notes") is a directory; attach the files in it instead.',
];

describeSandbox('what the server itself opens while it answers the files routes', () => {
  traced(
    'with file workers: nothing inside the workspace; doing the work itself: her files, many times',
    async () => {
      for (const mode of ['worker', 'in-process'] as const) {
        const { answers, lines, home } = await roundTrace(mode);
        const workspace = /"workspace":"(ws_[0-9a-f]+)"/.exec(answers[1] ?? '')?.[1] ?? 'none';
        expect(summary(answers, home)).toEqual(ROUND.map((answer) => answer.replace('WS', workspace)));
        if (mode === 'worker') {
          expect(lines).toEqual([]);
        } else {
          expect(lines.length).toBeGreaterThan(5);
          expect(lines.some((line) => line.includes('today-1.txt'))).toBe(true);
        }
      }
    },
    60_000,
  );
});
