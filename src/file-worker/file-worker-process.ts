/**
 * One running file worker, seen from the server: its sandboxed process (started by
 * `ShellSandbox.prepareFileWorker`), the handshake, and the calls in flight over its pipes
 * (file-worker-protocol.ts).
 *
 * Guarantees:
 * - `start` resolves only after the worker answered `init` with this server's protocol version within
 *   the start limit; a worker that speaks another version, says something else or ends first is
 *   killed and the start fails with why (and what it wrote on stderr).
 * - Every reply is untrusted input: a frame the reader refuses, a reply to no call in flight or one of
 *   another shape stops the worker (`invalid` below). What a reply's result holds is checked by the
 *   caller (file-worker-replies.ts), which stops the worker too when it is wrong.
 * - A worker that ends while calls are in flight fails each of them with an `execution_error` saying
 *   the worker ended and how; it is never asked again (`alive` is false), so the pool starts another.
 * - The process is the sandbox: killing it (`stop`) ends everything in it. It has bubblewrap's
 *   parent-death signal and reads its stdin to the end, so it also ends when this server dies, a
 *   `kill -9` included.
 * - What the worker writes on stderr is kept as a bounded tail for messages, and each line is passed
 *   on to this server's stderr inside a JSON log line of its own (so a line the worker writes can
 *   never pass for one of the server's).
 */
import { errorMessage } from '../errors/error-message.ts';
import type { ProgramProcess, SandboxedProgramLaunch } from '../sandbox/shell-sandbox.ts';
import type { ReachableSet } from '../tools/access/reachable-set.ts';
import { ToolError } from '../tools/errors.ts';
import {
  encodeCallFrames,
  encodeFrame,
  FILE_WORKER_PROTOCOL,
  type FileWorkerOperation,
  FileWorkerProtocolError,
  type Frame,
  FrameReader,
} from './file-worker-protocol.ts';
import { failureOfReply } from './file-worker-replies.ts';

/** How long a worker may take to answer `init` (a cold Bun start in a fresh sandbox takes ~50 ms). */
export const FILE_WORKER_START_LIMIT_MS = 10_000;
const STDERR_TAIL_BYTES = 4096;
const STDERR_LINE_BYTES = 4096;

export interface FileWorkerReply {
  result: unknown;
  payload: Uint8Array;
}

interface Pending {
  resolve(reply: FileWorkerReply): void;
  reject(error: unknown): void;
}

export interface FileWorkerStart {
  launch: SandboxedProgramLaunch;
  userId: string;
  reachable: ReachableSet;
  /** Receives each line of the worker's stderr, already wrapped (default: this process's stderr). */
  log?: (line: string) => void;
}

export class FileWorkerProcess {
  readonly #child: ProgramProcess;
  readonly #pending = new Map<number, Pending>();
  readonly #userId: string;
  readonly #log: (line: string) => void;
  #nextId = 1;
  #alive = true;
  #stderr = '';
  #hello: { resolve(): void; reject(error: Error): void } | undefined;
  /** Why the worker is gone, once it is. */
  #ended: string | undefined;

  private constructor(child: ProgramProcess, userId: string, log: (line: string) => void) {
    this.#child = child;
    this.#userId = userId;
    this.#log = log;
  }

  /** Starts the worker and waits for its handshake (see the module header). */
  static async start(start: FileWorkerStart): Promise<FileWorkerProcess> {
    const child = await start.launch.start();
    const worker = new FileWorkerProcess(
      child,
      start.userId,
      start.log ?? ((line) => process.stderr.write(`${line}\n`)),
    );
    const greeted = new Promise<void>((resolve, reject) => {
      worker.#hello = { resolve, reject };
    });
    // A worker that is gone before the init could be written (EPIPE) fails the start below; the
    // handshake it never gave is rejected later, when its exit is seen, and must not go unhandled.
    greeted.catch(() => {});
    void worker.#readStdout();
    void worker.#readStderr();
    void child.exited.then((status) => worker.#finish(`exit status ${status}`));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`it did not answer within ${FILE_WORKER_START_LIMIT_MS} ms`)),
        FILE_WORKER_START_LIMIT_MS,
      );
    });
    try {
      worker.#write(
        encodeFrame({
          type: 'init',
          protocol: FILE_WORKER_PROTOCOL,
          userId: start.userId,
          reachable: start.reachable,
        }),
      );
      await Promise.race([greeted, late]);
    } catch (error) {
      worker.stop();
      const status = await child.exited;
      // A worker gone before its init could be written (EPIPE) is told by how it ended, as one that
      // ended after it: which of the two comes first is a race.
      const why =
        (error as { code?: unknown }).code === 'EPIPE' ? `exit status ${status}` : errorMessage(error);
      const said = worker.stderrTail();
      throw new ToolError(
        'execution_error',
        `The file worker for this call could not start: ${why}${said ? ` (it said: ${said})` : ''}.`,
      );
    } finally {
      clearTimeout(timer);
    }
    // A worker idle in the pool must not keep a CLI process alive; calls in flight hold their own promises.
    child.unref();
    return worker;
  }

  /** False once the worker ended or was stopped: it takes no more calls. */
  get alive(): boolean {
    return this.#alive;
  }

  /** Calls in flight. */
  get busy(): number {
    return this.#pending.size;
  }

  /** The host pid of the sandbox's outermost process (for tests). */
  get pid(): number {
    return this.#child.pid;
  }

  /** Resolves once the process has exited. */
  get exited(): Promise<number> {
    return this.#child.exited;
  }

  stderrTail(): string {
    return this.#stderr.trim();
  }

  /**
   * One call; resolves with the reply's result and payload, or rejects with a classified ToolError.
   * When `signal` fires first, the call rejects at once with its reason and the worker is sent a
   * `cancel` for it; the answer it still gives is taken in (the call stays in flight until then) and
   * dropped.
   */
  call(
    op: FileWorkerOperation,
    parameters: Record<string, unknown>,
    args: Record<string, unknown>,
    payload?: Uint8Array,
    signal?: AbortSignal,
  ): Promise<FileWorkerReply> {
    if (!this.#alive) return Promise.reject(this.#endedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.#nextId++;
    return new Promise<FileWorkerReply>((resolve, reject) => {
      const onAbort = () => {
        const pending = this.#pending.get(id);
        if (pending === undefined) return;
        this.#pending.set(id, { resolve: () => {}, reject: () => {} });
        try {
          this.#write(encodeFrame({ type: 'cancel', id }));
        } catch {
          // The pipe is closed: the worker is gone, and the call with it.
        }
        reject(signal?.reason);
      };
      const settled = () => signal?.removeEventListener('abort', onAbort);
      this.#pending.set(id, {
        resolve: (reply) => {
          settled();
          resolve(reply);
        },
        reject: (error) => {
          settled();
          reject(error);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        for (const frame of encodeCallFrames({ type: 'call', id, op, parameters, args }, payload))
          this.#write(frame);
      } catch (error) {
        // A payload no call may carry fails this call alone; otherwise the pipe is closed, and the exit
        // that closed it fails the call with how the worker ended.
        if (error instanceof FileWorkerProtocolError) {
          this.#pending.delete(id);
          settled();
          reject(
            new ToolError(
              'validation_failed',
              `The file work of this call cannot be sent: ${error.message}.`,
            ),
          );
        }
      }
    });
  }

  /** Stops the worker because it broke the protocol; calls in flight fail with `reason`. */
  invalid(reason: string): void {
    this.#finish(`it broke the protocol: ${reason}`);
  }

  /** Kills the worker and everything in its sandbox. */
  stop(): void {
    this.#alive = false;
    try {
      this.#child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }

  #write(frame: Uint8Array): void {
    this.#child.stdin.write(frame);
    void this.#child.stdin.flush();
  }

  #endedError(): ToolError {
    const said = this.stderrTail();
    return new ToolError(
      'execution_error',
      `The file worker of this call ended (${this.#ended ?? 'stopped'}) before it answered, so the file work did not complete; the next call starts a new worker.${said ? ` It said: ${said}` : ''}`,
    );
  }

  #finish(how: string): void {
    this.#ended ??= how;
    this.stop();
    this.#hello?.reject(new Error(this.#ended));
    this.#hello = undefined;
    const error = this.#endedError();
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  async #readStdout(): Promise<void> {
    const reader = new FrameReader();
    const stream = this.#child.stdout.getReader();
    try {
      for (;;) {
        const { done, value } = await stream.read();
        if (done) return;
        for (const frame of reader.push(value)) this.#receive(frame);
      }
    } catch (error) {
      this.invalid(error instanceof FileWorkerProtocolError ? error.message : errorMessage(error));
    }
  }

  #receive(frame: Frame): void {
    const header = frame.header as Record<string, unknown> | null;
    if (this.#hello !== undefined) {
      if (header?.type !== 'hello' || header.protocol !== FILE_WORKER_PROTOCOL) {
        throw new FileWorkerProtocolError(
          header?.type === 'hello'
            ? `it speaks protocol ${JSON.stringify(header.protocol)}, this server speaks ${FILE_WORKER_PROTOCOL}`
            : 'its first frame is not its hello',
        );
      }
      this.#hello.resolve();
      this.#hello = undefined;
      return;
    }
    const id = header?.type === 'reply' && typeof header.id === 'number' ? header.id : undefined;
    const pending = id === undefined ? undefined : this.#pending.get(id);
    if (header === null || pending === undefined || typeof header.ok !== 'boolean') {
      throw new FileWorkerProtocolError('a frame that is no reply to a call in flight');
    }
    this.#pending.delete(id as number);
    if (header.ok) {
      pending.resolve({ result: header.result, payload: frame.payload });
      return;
    }
    const failure = failureOfReply(header.error);
    if (failure === undefined) throw new FileWorkerProtocolError('a failure without a valid classification');
    pending.reject(failure);
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    let line = '';
    const pass = (text: string) => {
      this.#stderr = (this.#stderr + text).slice(-STDERR_TAIL_BYTES);
      line = (line + text).slice(-STDERR_LINE_BYTES);
      let newline = line.indexOf('\n');
      while (newline !== -1) {
        const said = line.slice(0, newline);
        line = line.slice(newline + 1);
        if (said.length > 0) {
          this.#log(
            JSON.stringify({ level: 'info', event: 'file_worker_stderr', userId: this.#userId, line: said }),
          );
        }
        newline = line.indexOf('\n');
      }
    };
    try {
      for await (const chunk of this.#child.stderr as unknown as AsyncIterable<Uint8Array>) {
        pass(decoder.decode(chunk, { stream: true }));
      }
    } catch {
      // The pipe broke with the process: what came before is kept.
    }
  }
}
