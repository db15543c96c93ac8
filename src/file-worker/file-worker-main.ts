/**
 * The file worker's own program: what runs inside a user's sandbox, as that user's uid, seeing only
 * that user's reachable set (and the Bun runtime and this program, read-only). It is bundled into one
 * file (file-worker-bundle.ts) and started by the file worker pool; it speaks the protocol of
 * file-worker-protocol.ts on stdin and stdout.
 *
 * It does each call with the in-process file operations (tools/fs/in-process-file-operations.ts), the
 * same code the server runs in operator mode, on a context built from the call: the reachable set
 * given at `init` and the call's path settings. It holds no ledger (the server keeps the chat's) and
 * creates files as the uid it runs as, which is the user's. Each call has a signal of its own, fired
 * by the server's `cancel` of that call; at init it declares its file work confined
 * (tools/fs/confined-file-work.ts), which only this program does.
 *
 * It ends when stdin ends (the server closed the pipe, or died), and on any frame it cannot read.
 */
import { setPipeCapacity } from '../descriptors/linux-file-calls.ts';
import { errorMessage } from '../errors/error-message.ts';
import { setAccessLogWriter } from '../tools/access/access-log.ts';
import { ProtectedPathRefusedError } from '../tools/access/protected-path-refused-error.ts';
import type { ReachableSet } from '../tools/access/reachable-set.ts';
import { ToolError } from '../tools/errors.ts';
import type { FileObservation, FreshnessLedger } from '../tools/freshness-ledger.ts';
import { declareConfinedFileWork } from '../tools/fs/confined-file-work.ts';
import type { FileOperations } from '../tools/fs/file-operations.ts';
import { globFileWork } from '../tools/fs/glob-files.ts';
import type { GrepOptions } from '../tools/fs/grep/grep-options.ts';
import { createInProcessFileOperations } from '../tools/fs/in-process-file-operations.ts';
import type { ToolContext } from '../tools/types.ts';
import {
  encodeFrame,
  FILE_WORKER_PROTOCOL,
  type Frame,
  FrameReader,
  MAX_CALL_PARTS,
} from './file-worker-protocol.ts';
import { LOCATION_FAILURES } from './file-worker-replies.ts';
import { encodeGlobMatches } from './glob-paths-payload.ts';

/** The worker keeps no observations: the chat's ledger lives with the server. */
const NO_LEDGER: FreshnessLedger = {
  get: (_path: string): Promise<FileObservation | undefined> => {
    throw new Error('the file worker has no freshness ledger');
  },
  put: (): Promise<void> => {
    throw new Error('the file worker has no freshness ledger');
  },
  delete: (): Promise<void> => {
    throw new Error('the file worker has no freshness ledger');
  },
};

interface Scope {
  userId: string;
  reachable: ReachableSet;
}

interface Call {
  id: number;
  op: string;
  parameters: Record<string, unknown>;
  args: Record<string, unknown>;
}

// A large read crosses the pipe in fewer turns of both event loops: 1 MiB is the most an unprivileged
// process may ask for by default (`/proc/sys/fs/pipe-max-size`); a refusal keeps the kernel's 64 KiB.
try {
  setPipeCapacity(1, 1024 * 1024, 'stdout');
} catch {
  // Works at the smaller capacity too, only slower for large files.
}
const output = Bun.stdout.writer();

function send(header: unknown, payload?: Uint8Array): void {
  output.write(encodeFrame(header, payload));
  void output.flush();
}

function fail(reason: string): never {
  process.stderr.write(`mango file worker: ${reason}\n`);
  process.exit(2);
}

function contextFor(scope: Scope, parameters: Record<string, unknown>, signal: AbortSignal): ToolContext {
  return {
    userId: scope.userId,
    chatId: undefined,
    reachable: scope.reachable,
    settings: { enabled: true, parameters },
    signal,
    ledger: NO_LEDGER,
    onProgress: () => {},
    now: () => Date.now(),
    dataDirectory: undefined,
  };
}

/**
 * A resolution's answer, failures included: the server words a loop, a denied directory or a path
 * changing under the walk itself (resolve-and-validate-path.ts), so those come back by their code.
 */
async function locate(operations: FileOperations, absolute: string): Promise<unknown> {
  try {
    const location = await operations.resolveLocation(absolute);
    return { outcome: 'located', real: location.real, exists: location.exists };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && (LOCATION_FAILURES as readonly string[]).includes(code)) {
      return { outcome: 'failed', code, message: errorMessage(error) };
    }
    throw error;
  }
}

async function perform(
  operations: FileOperations,
  context: ToolContext,
  call: Call,
  payload: Uint8Array,
): Promise<{ result: unknown; payload?: Uint8Array }> {
  const args = call.args;
  switch (call.op) {
    case 'readFile': {
      const outcome = await operations.readFile({
        path: String(args.path),
        need: args.need === 'write' ? 'write' : 'read',
        ceiling: Number(args.ceiling),
        action: String(args.action),
      });
      if (outcome.kind !== 'file') return { result: outcome };
      const { bytes, ...rest } = outcome;
      return { result: rest, payload: bytes };
    }
    case 'inspectWriteTarget':
      return { result: await operations.inspectWriteTarget(String(args.path)) };
    case 'replaceFile':
      return {
        result: await operations.replaceFile({
          target: String(args.target),
          data: payload,
          mode: typeof args.mode === 'number' ? args.mode : undefined,
          shown: String(args.shown),
        }),
      };
    case 'listDirectory':
      return { result: await operations.listDirectory(String(args.path)) };
    case 'resolveLocation':
      return { result: await locate(operations, String(args.absolute)) };
    // A message's attachments.
    case 'inspectFile':
      return {
        result: await operations.inspectFile({ path: String(args.path), argument: String(args.argument) }),
      };
    // glob: the matches travel as the payload, grouped as the walk collected them (glob-paths-payload.ts).
    case 'globFiles': {
      const { matches, ...rest } = await globFileWork(
        {
          pattern: String(args.pattern),
          cwd: String(args.cwd),
          dot: args.dot === true,
          maxResults: Number(args.maxResults),
        },
        context,
      );
      return { result: { ...rest, count: matches.count }, payload: encodeGlobMatches(matches) };
    }
    // grep.
    case 'grepFiles':
      return {
        result: await operations.grepFiles({ path: String(args.path), options: args.options as GrepOptions }),
      };
    default:
      return performForFilesRoutes(operations, call, payload);
  }
}

/** The operations of the workspace files routes (listings, downloads in ranges, uploads). */
async function performForFilesRoutes(
  operations: FileOperations,
  call: Call,
  payload: Uint8Array,
): Promise<{ result: unknown; payload?: Uint8Array }> {
  const args = call.args;
  switch (call.op) {
    case 'listFolder':
      return { result: await operations.listFolder({ path: String(args.path), limit: Number(args.limit) }) };
    case 'openDownload': {
      const outcome = await operations.openDownload(String(args.path));
      if (outcome.kind !== 'file') return { result: outcome };
      const { signature, ...rest } = outcome;
      return { result: rest, payload: signature };
    }
    case 'readRange': {
      const bytes = await operations.readRange({
        real: String(args.real),
        identity: String(args.identity),
        offset: Number(args.offset),
        length: Number(args.length),
        shown: String(args.shown),
      });
      return { result: { read: bytes.length }, payload: bytes };
    }
    case 'uploadFile':
      return {
        result: await operations.uploadFile({
          directory: String(args.directory),
          name: String(args.name),
          overwrite: args.overwrite === true,
          data: payload,
          shown: String(args.shown),
        }),
      };
    default:
      throw new Error(`there is no operation ${JSON.stringify(call.op)}`);
  }
}

/** The signals of the calls in flight, by id: a `cancel` fires one. */
const inFlight = new Map<number, AbortController>();

async function answer(scope: Scope, call: Call, payload: Uint8Array): Promise<void> {
  const controller = new AbortController();
  inFlight.set(call.id, controller);
  const context = contextFor(scope, call.parameters, controller.signal);
  const operations = createInProcessFileOperations(context, async () => undefined);
  try {
    const done = await perform(operations, context, call, payload);
    send({ type: 'reply', id: call.id, ok: true, result: done.result }, done.payload);
  } catch (error) {
    const failure = ToolError.isInstance(error)
      ? { classification: error.classification, message: error.message, ...refusalOf(error) }
      : { classification: 'execution_error', message: `The file worker failed: ${errorMessage(error)}` };
    send({ type: 'reply', id: call.id, ok: false, error: failure });
  } finally {
    inFlight.delete(call.id);
  }
}

/** Stops the work of call `id` (its grep threads are terminated); an id already answered is no error. */
function cancel(header: Record<string, unknown>): void {
  if (typeof header.id !== 'number') fail('a cancel without an id');
  inFlight
    .get(header.id)
    ?.abort(new ToolError('execution_error', 'The server cancelled this call before it was answered.'));
}

function asCall(header: Record<string, unknown>): Call {
  if (typeof header.id !== 'number' || typeof header.op !== 'string') fail('a call without an id or an op');
  const record = (value: unknown) =>
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  return { id: header.id, op: header.op, parameters: record(header.parameters), args: record(header.args) };
}

let scope: Scope | undefined;

/** Calls whose payload comes in several frames, until its last part (file-worker-protocol.ts). */
const assembling = new Map<number, { call: Call; runs: Uint8Array[]; parts: number }>();

/** Answers `call` now, or, when it says its payload comes in `parts`, holds it until they all came. */
function takePart(scope: Scope, call: Call, parts: unknown, payload: Uint8Array): void {
  if (parts === undefined) {
    void answer(scope, call, payload);
    return;
  }
  if (typeof parts !== 'number' || !Number.isInteger(parts) || parts < 2 || parts > MAX_CALL_PARTS) {
    fail(`a call in ${JSON.stringify(parts)} parts`);
  }
  if (assembling.has(call.id)) fail(`a second call of id ${call.id} while its parts come`);
  assembling.set(call.id, { call, runs: [payload], parts });
}

function receivePart(scope: Scope, header: Record<string, unknown>, payload: Uint8Array): void {
  const entry = typeof header.id === 'number' ? assembling.get(header.id) : undefined;
  if (entry === undefined) fail('a part of no call whose parts are coming');
  entry.runs.push(payload);
  if (entry.runs.length < entry.parts) return;
  assembling.delete(entry.call.id);
  void answer(scope, entry.call, Buffer.concat(entry.runs));
}

function receive(frame: Frame): void {
  const header = frame.header as Record<string, unknown>;
  if (scope === undefined) {
    if (header?.type !== 'init') fail('the first frame is not init');
    // Answered with this worker's version either way: the server refuses one it does not speak.
    send({ type: 'hello', protocol: FILE_WORKER_PROTOCOL });
    if (header.protocol !== FILE_WORKER_PROTOCOL)
      fail(`the server speaks protocol ${String(header.protocol)}`);
    scope = { userId: String(header.userId), reachable: header.reachable as ReachableSet };
    // This process is the sandboxed worker: its file work is confined (confined-file-work.ts).
    declareConfinedFileWork();
    return;
  }
  if (header?.type === 'cancel') {
    cancel(header);
    return;
  }
  if (header?.type === 'part') {
    receivePart(scope, header, frame.payload);
    return;
  }
  if (header?.type !== 'call') fail(`a frame of type ${JSON.stringify(header?.type)}`);
  takePart(scope, asCall(header), header.parts, frame.payload);
}

/**
 * A refusal of the protected set travels with its locations, so the server logs it as its own
 * (worker-protected-path-refusal.ts); the worker logs none itself: its stderr is no log of the server's.
 */
function refusalOf(error: ToolError): { refusal?: Record<string, string> } {
  if (!(error instanceof ProtectedPathRefusedError)) return {};
  return { refusal: { reason: 'protected_path', ...error.location } };
}
setAccessLogWriter(() => {});

const reader = new FrameReader();
const input = Bun.stdin.stream().getReader();
try {
  for (;;) {
    const { done, value } = await input.read();
    if (done) break;
    for (const frame of reader.push(value)) receive(frame);
  }
} catch (error) {
  fail(errorMessage(error));
}
// stdin ended: the server closed the pipe or is gone.
await output.flush();
process.exit(0);
