/**
 * The chat page in headless Chromium (/usr/bin/chromium) against the real server, its model played by the
 * replay server: while a 200 KB markdown answer streams in 2,000 deltas of 100 characters (the browser
 * tests' answer), the longest main-thread task (PerformanceObserver `longtask`, and the longest task of a
 * Chromium trace, which sees tasks under 50 ms too), how many went over 50 ms, and the longest gap
 * between two frames; then the time from navigation to an enabled, focused composer on an open chat,
 * cold (HTTP cache cleared) and warm (revalidated), and the JavaScript transferred (compressed) and
 * decoded. `CHAT_STREAM_BENCH_RUNS` streams (default 3). `CHAT_STREAM_BENCH_PROFILE=1` also prints
 * where the main thread spent the stream (a CPU profile's self time by function, and the trace's
 * longest tasks by what ran in them). Reported as measured on this machine, never asserted.
 */
import type { CDPSession, Page } from 'playwright-core';
import { bigMarkdownAnswerPieces } from '../tests/helpers/big-markdown-answer.ts';
import { startReplayServer } from '../tests/helpers/replay-server.ts';
import { chatTextDeltasBody } from '../tests/helpers/scripted-provider-streams.ts';
import {
  callApi,
  launchTestBrowser,
  recordMainThread,
  SHORT_DESKTOP_VIEWPORT,
  signIn,
  startWebTestServer,
  waitForWholeAnswer,
} from '../tests/helpers/web-browser.ts';

const RUNS = Number(process.env.CHAT_STREAM_BENCH_RUNS ?? 3);
const PROFILE = process.env.CHAT_STREAM_BENCH_PROFILE === '1';

interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  tid: number;
  pid: number;
  args?: { data?: { functionName?: string; url?: string } };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const replay = startReplayServer();
const server = await startWebTestServer({
  environment: { OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1` },
});
const browser = await launchTestBrowser(server.url);

async function newChat(title: string): Promise<string> {
  const created = await callApi(server, 'POST', '/api/chats', {
    provider: 'openai-compatible',
    model: 'test-model',
    title,
  });
  return ((await created.json()) as { id: string }).id;
}

async function traceEvents(session: CDPSession, collect: () => Promise<void>): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  session.on('Tracing.dataCollected', (message) => {
    events.push(...(message.value as unknown as TraceEvent[]));
  });
  await session.send('Tracing.start', {
    categories: 'devtools.timeline,disabled-by-default-devtools.timeline,v8.execute,blink.user_timing',
    transferMode: 'ReportEvents',
  });
  await collect();
  const complete = new Promise<void>((resolve) => session.once('Tracing.tracingComplete', () => resolve()));
  await session.send('Tracing.end');
  await complete;
  return events;
}

/** The renderer main thread's top-level tasks, longest first, with the time of what ran inside each. */
function longestTasks(events: TraceEvent[], count: number) {
  const main = events.find(
    (event) => event.name === 'thread_name' && (event.args as { name?: string })?.name === 'CrRendererMain',
  );
  const onMain = events.filter(
    (event) => main && event.pid === main.pid && event.tid === main.tid && event.ph === 'X',
  );
  const tasks = onMain
    .filter((event) => event.name === 'RunTask')
    .sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0));
  return tasks.slice(0, count).map((task) => {
    const end = task.ts + (task.dur ?? 0);
    const inside = new Map<string, number>();
    for (const event of onMain) {
      if (event === task || event.ts < task.ts || event.ts >= end) continue;
      if (event.name === 'RunTask') continue;
      inside.set(event.name, (inside.get(event.name) ?? 0) + (event.dur ?? 0));
    }
    return {
      ms: (task.dur ?? 0) / 1000,
      from: task.ts,
      to: end,
      inside: [...inside]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)
        .map(([name, us]) => `${name} ${(us / 1000).toFixed(1)}`),
    };
  });
}

/** The main thread's total time in each kind of work over the trace (nested events counted in each). */
function totals(events: TraceEvent[], names: readonly string[]): string {
  const main = events.find(
    (event) => event.name === 'thread_name' && (event.args as { name?: string })?.name === 'CrRendererMain',
  );
  return names
    .map((name) => {
      const matching = events.filter(
        (event) =>
          main && event.pid === main.pid && event.tid === main.tid && event.ph === 'X' && event.name === name,
      );
      const ms = matching.reduce((sum, event) => sum + (event.dur ?? 0), 0) / 1000;
      return `${name} ${ms.toFixed(0)} ms (${matching.length})`;
    })
    .join(', ');
}

/**
 * Time by function of a CPU profile, largest first: each sample counted for its own function and the
 * app's innermost function under which it ran (native work such as layout or HTML parsing is named by
 * what asked for it); only samples within `window` (trace microseconds) when given.
 */
function selfTimes(profile: CpuProfile, count: number, window?: { from: number; to: number }) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const name = (frame: ProfileNode['callFrame']) =>
    `${frame.functionName || '(anonymous)'} ${frame.url.split('/').at(-1) ?? ''}:${frame.lineNumber + 1}`;
  const totals = new Map<string, number>();
  let time = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    time += delta;
    if (window && (time < window.from || time > window.to)) return;
    let app: number | undefined = id;
    while (app !== undefined && !byId.get(app)!.callFrame.url.endsWith('.js')) app = parent.get(app);
    const leaf = name(byId.get(id)!.callFrame);
    const key = app === undefined || app === id ? leaf : `${leaf} under ${name(byId.get(app)!.callFrame)}`;
    totals.set(key, (totals.get(key) ?? 0) + delta);
  });
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, us]) => `${(us / 1000).toFixed(1).padStart(7)} ms  ${key}`);
}

async function streamOnce(page: Page, run: number) {
  replay.enqueue({ body: chatTextDeltasBody(bigMarkdownAnswerPieces()) });
  const title = `Big answer ${run}`;
  const id = await newChat(title);
  await page.goto(`${server.url}/chats/${id}`);
  await page.getByRole('heading', { name: title, level: 1 }).waitFor();
  const stopRecording = await recordMainThread(page);
  const session = await page.context().newCDPSession(page);
  if (PROFILE) {
    await session.send('Profiler.enable');
    await session.send('Profiler.setSamplingInterval', { interval: 200 });
    await session.send('Profiler.start');
  }
  const started = performance.now();
  const events = await traceEvents(session, async () => {
    await page.getByLabel('Message').fill('Stream a big answer.');
    await page.getByLabel('Message').press('Enter');
    await waitForWholeAnswer(page, 'Sentence 1999');
  });
  const seconds = (performance.now() - started) / 1000;
  const measured = await stopRecording();
  const tasks = longestTasks(events, PROFILE ? 5 : 1);
  console.log(
    `stream ${run + 1}: longest long task ${measured.longestTask.toFixed(0)} ms (${measured.longTasks} over 50 ms), longest traced task ${tasks[0]?.ms.toFixed(0)} ms, longest frame gap ${measured.longestFrameGap.toFixed(0)} ms, ${seconds.toFixed(1)} s`,
  );
  if (PROFILE) {
    console.log(
      `  main thread: ${totals(events, ['RunTask', 'Layout', 'UpdateLayoutTree', 'Paint', 'PrePaint', 'FunctionCall', 'ParseHTML', 'MinorGC', 'MajorGC'])}`,
    );
    const { profile } = (await session.send('Profiler.stop')) as unknown as { profile: CpuProfile };
    for (const task of tasks) {
      console.log(`  task ${task.ms.toFixed(1)} ms: ${task.inside.join(', ')}`);
      for (const line of selfTimes(profile, 6, task)) console.log(`    ${line}`);
    }
    console.log('  self time during the stream:');
    for (const line of selfTimes(profile, 25)) console.log(`  ${line}`);
  }
  await session.detach();
  return { ...measured, traced: tasks[0]?.ms ?? 0 };
}

/** Milliseconds from navigation start to an enabled, focused composer on the open chat. */
async function toComposer(page: Page, id: string): Promise<number> {
  await page.goto(`${server.url}/chats/${id}`, { waitUntil: 'commit' });
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const check = () => {
          const composer = document.querySelector('.composer textarea') as HTMLTextAreaElement | null;
          if (composer && !composer.disabled && document.activeElement === composer)
            resolve(performance.now());
          else requestAnimationFrame(check);
        };
        check();
      }),
  );
}

try {
  const page = await browser.newPage(SHORT_DESKTOP_VIEWPORT);
  await signIn(page, server.url, server.token);
  const runs = [];
  for (let run = 0; run < RUNS; run += 1) runs.push(await streamOnce(page, run));
  const worst = Math.max(...runs.map((run) => run.longestTask));
  console.log(
    `200 KB in 2,000 deltas over ${RUNS} streams: longest long task ${worst.toFixed(0)} ms, longest traced task ${Math.max(...runs.map((run) => run.traced)).toFixed(0)} ms, tasks over 50 ms ${runs.map((run) => run.longTasks).join('/')}, longest frame gap ${Math.max(...runs.map((run) => run.longestFrameGap)).toFixed(0)} ms`,
  );

  const id = await newChat('Open chat');
  const session = await page.context().newCDPSession(page);
  const colds: number[] = [];
  const warms: number[] = [];
  for (let attempt = 0; attempt < 5; attempt += 1) {
    await session.send('Network.clearBrowserCache');
    colds.push(await toComposer(page, id));
    warms.push(await toComposer(page, id));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(
    `navigation to an enabled, focused composer (median of 5): cold ${median(colds).toFixed(0)} ms (${colds.map((value) => value.toFixed(0)).join(', ')}), warm ${median(warms).toFixed(0)} ms (${warms.map((value) => value.toFixed(0)).join(', ')})`,
  );
  await session.send('Network.clearBrowserCache');
  await toComposer(page, id);
  const scripts = await page.evaluate(() =>
    (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((timing) => timing.initiatorType === 'script' || timing.name.endsWith('.js'))
      .map((timing) => ({
        name: timing.name.split('/').at(-1),
        transferred: timing.encodedBodySize,
        decoded: timing.decodedBodySize,
      })),
  );
  for (const script of scripts) {
    console.log(
      `JavaScript ${script.name}: ${script.transferred} bytes transferred (compressed), ${script.decoded} decoded`,
    );
  }
  if (replay.failures.length > 0) throw new Error(`replay failures: ${replay.failures.join('; ')}`);
} finally {
  await browser.close();
  await server.stop();
  await replay.close();
}
