/**
 * An MCP client transport over a program's stdin and stdout, where the program is started by a
 * sandbox launch (`ShellSandbox.prepareProgram`): the process carries the sandbox, so killing it ends
 * the sandbox and everything in it. Messages are newline-delimited JSON-RPC (the
 * SDK's own framing); stderr is kept as a bounded tail so a crash is reported with what the program
 * said last. `close()` ends the program (SIGTERM, then SIGKILL after a grace period) and resolves once
 * it is gone; `onclose` fires exactly once, whoever ended it.
 */
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ProgramProcess, SandboxedProgramLaunch } from '../sandbox/shell-sandbox.ts';

/** How much of the program's stderr is kept for error messages. */
export const STDERR_TAIL_BYTES = 4096;
const KILL_GRACE_MS = 2000;

export class SandboxedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #launch: SandboxedProgramLaunch;
  readonly #buffer = new ReadBuffer();
  #process: ProgramProcess | undefined;
  #starting = false;
  #stderr = '';
  #closed = false;
  #exited: Promise<void> = Promise.resolve();

  constructor(launch: SandboxedProgramLaunch) {
    this.#launch = launch;
  }

  /** The last {@link STDERR_TAIL_BYTES} the program wrote to stderr, trimmed. */
  stderrTail(): string {
    return this.#stderr.trim();
  }

  /** The program's exit code once it has exited, else undefined. */
  exitCode(): number | null | undefined {
    return this.#process?.exitCode ?? undefined;
  }

  async start(): Promise<void> {
    if (this.#starting) throw new Error('SandboxedStdioTransport already started.');
    this.#starting = true;
    const child = await this.#launch.start();
    this.#process = child;
    this.#exited = child.exited.then(() => undefined);
    void this.#readStdout(child.stdout);
    void this.#readStderr(child.stderr);
    void child.exited.then(() => this.#finish());
  }

  async #readStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value: chunk } = await reader.read();
        if (done) break;
        this.#buffer.append(Buffer.from(chunk));
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.#buffer.readMessage();
          } catch (error) {
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      }
    } catch (error) {
      if (!this.#closed) this.onerror?.(error as Error);
    }
  }

  async #readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value: chunk } = await reader.read();
        if (done) break;
        this.#stderr = (this.#stderr + decoder.decode(chunk, { stream: true })).slice(-STDERR_TAIL_BYTES);
      }
    } catch {
      // The program is gone; what it said so far is kept.
    }
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#buffer.clear();
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.#process;
    if (!child || this.#closed) throw new Error('The MCP server process is not running.');
    child.stdin.write(serializeMessage(message));
    await child.stdin.flush();
  }

  async close(): Promise<void> {
    const child = this.#process;
    if (!child) {
      this.#finish();
      return;
    }
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.stdin.end();
      } catch {
        // Already closed by the program.
      }
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
      await this.#exited;
      clearTimeout(timer);
    }
    this.#finish();
  }
}
