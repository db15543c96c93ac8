/**
 * An MCP client transport over a program's stdin and stdout, where the program is started by a
 * sandbox launch (`ShellSandbox.prepareProgram`): the process carries the sandbox, so killing it ends
 * the sandbox and everything in it. Messages are newline-delimited JSON-RPC (the
 * SDK's own framing), each line read through a {@link MessageCutter} so no more than the message
 * limit of a line is ever held (a 50 MiB line arrives as its first bytes, marked cut); stderr is kept as a bounded tail so a crash is reported with what the program
 * said last. `close()` ends the program (SIGTERM, then SIGKILL after a grace period) and resolves once
 * it is gone; `onclose` fires exactly once, whoever ended it.
 */
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ProgramProcess, SandboxedProgramLaunch } from '../sandbox/shell-sandbox.ts';
import { MessageCutter } from './message-cutter.ts';

/** How much of the program's stderr is kept for error messages. */
export const STDERR_TAIL_BYTES = 4096;
const KILL_GRACE_MS = 2000;
const NEWLINE = 0x0a;

export class SandboxedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #launch: SandboxedProgramLaunch;
  readonly #messageBytes: number;
  /** The line being read; replaced at every newline. */
  #line: MessageCutter;
  /** Why the line being read cannot be a message (reported once, at its newline). */
  #lineError: Error | undefined;
  #process: ProgramProcess | undefined;
  #starting = false;
  #stderr = '';
  #closed = false;
  #exited: Promise<void> = Promise.resolve();

  /** @param messageBytes bytes kept of one line (one message). */
  constructor(launch: SandboxedProgramLaunch, messageBytes: number) {
    this.#launch = launch;
    this.#messageBytes = messageBytes;
    this.#line = new MessageCutter(messageBytes);
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
        this.#readLines(chunk);
      }
    } catch (error) {
      if (!this.#closed) this.onerror?.(error as Error);
    }
  }

  #readLines(chunk: Uint8Array): void {
    let start = 0;
    while (start < chunk.length && !this.#closed) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (this.#lineError === undefined) {
        try {
          this.#line.feed(chunk, start, end);
        } catch (error) {
          this.#lineError = error as Error;
        }
      }
      if (newline === -1) return;
      this.#endLine();
      start = newline + 1;
    }
  }

  #endLine(): void {
    const line = this.#line;
    const failed = this.#lineError;
    this.#line = new MessageCutter(this.#messageBytes);
    this.#lineError = undefined;
    if (failed !== undefined) {
      this.onerror?.(failed);
      return;
    }
    let message: JSONRPCMessage;
    try {
      const text = new TextDecoder().decode(line.finish());
      if (text === '') return;
      message = deserializeMessage(text);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    this.onmessage?.(message);
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
    this.#line = new MessageCutter(this.#messageBytes);
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
