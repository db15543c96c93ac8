/**
 * buildShellTool: the one RegisteredTool behind the three shell
 * tools, which differ only by interpreter. Disabled by default; settings `timeoutSeconds` (5–600, default
 * 30), `maxOutputBytes` (1 KB–1 MB per stream, default 100 KB), `deniedEnvVars`, and the shared
 * `allowedPaths` / `deniedPaths` that govern `cwd` (denied paths are also covered inside the sandbox).
 *
 * Every command runs through a ShellSandbox (sandbox/shell-sandbox.ts), never directly: the tool is
 * unavailable, with the sandbox's reason, when the sandbox cannot run. The sandbox shows the command
 * the call's reachable set; a call without one (a caller not yet computing it) is confined to its
 * working directory.
 *
 * Outcomes: any exit (zero or not) and a death by signal are results (`ShellCommandResult`); a timeout is
 * a `timeout` error naming the budget, a caller's abort is `cancelled` (only a genuine timeout surfaces
 * the timeout error message). A command whose process the OOM killer ended because its user's memory
 * share ran out is a result too (`termination.kind` `memory`), whose notice names the share: the model
 * reads what it printed and why it stopped.
 */

import { Type } from '@sinclair/typebox';
import { hostShellSandbox } from '../../sandbox/host-shell-sandbox.ts';
import type { ShellSandbox } from '../../sandbox/shell-sandbox.ts';
import { shellToolNotice } from '../../sandbox/shell-sandbox-notice.ts';
import { getAccessPolicy } from '../access/access-policy.ts';
import { accessAt } from '../access/reachable-set.ts';
import { defineTool } from '../define-tool.ts';
import {
  ToolArgumentError,
  ToolCancelledError,
  ToolError,
  ToolPermissionError,
  ToolTimeoutError,
} from '../errors.ts';
import { MAX_TOOL_TIMEOUT_SECONDS, MIN_TOOL_TIMEOUT_SECONDS } from '../execution.ts';
import { PATH_ACCESS_SETTINGS } from '../fs/path-access-settings.ts';
import { excerptCutMarker, formatBytes, shellOutputCapNotice } from '../output/cut-notices.ts';
import { capCharacters } from '../output/utf8-cap.ts';
import type { ShellCommandResult } from '../shell/run-shell-command.ts';
import { SHELL_APPROVAL_SETTINGS } from '../shell/shell-approval-settings.ts';
import { findShellInterpreter, type ShellInterpreter, type ShellKind } from '../shell/shell-interpreter.ts';
import { resolveShellWorkingDirectory } from '../shell/shell-working-directory.ts';
import { type SettingValues, setting } from '../tool-settings.ts';
import type { RegisteredTool, ToolContext } from '../types.ts';

export const DEFAULT_SHELL_TIMEOUT_SECONDS = 30;
export const MIN_SHELL_OUTPUT_BYTES = 1024;
export const MAX_SHELL_OUTPUT_BYTES = 1024 * 1024;
export const DEFAULT_SHELL_OUTPUT_BYTES = 100 * 1024;
/** Longest command line accepted from a model (a correctable error past it, not a truncation). */
export const MAX_SHELL_COMMAND_LENGTH = 100_000;
/** How much of the output a timeout error quotes, per stream. */
const TIMEOUT_OUTPUT_EXCERPT_CHARACTERS = 2000;

export interface BuildShellToolOptions {
  /** The located interpreter; defaults to findShellInterpreter(kind) at call time. */
  interpreter?: ShellInterpreter;
  /** Where commands run; read at each use. Default: this process's sandbox (host-shell-sandbox.ts). */
  sandbox?: () => ShellSandbox;
}

const TITLES: Record<ShellKind, string> = { bash: 'Bash', zsh: 'Zsh', powershell: 'PowerShell' };

const INVOCATIONS: Record<ShellKind, string> = {
  bash: 'bash -c',
  zsh: 'zsh -c',
  powershell: 'powershell -NoProfile -NonInteractive -Command',
};

const SHELL_SETTINGS = {
  timeoutSeconds: setting.integer({
    label: 'Timeout (seconds)',
    description: 'A command still running after this many seconds is killed with everything it started.',
    default: DEFAULT_SHELL_TIMEOUT_SECONDS,
    min: MIN_TOOL_TIMEOUT_SECONDS,
    max: MAX_TOOL_TIMEOUT_SECONDS,
  }),
  maxOutputBytes: setting.integer({
    label: 'Output cap per stream (bytes)',
    description:
      'stdout and stderr each keep at most this many bytes; the rest is dropped and the result says truncated.',
    default: DEFAULT_SHELL_OUTPUT_BYTES,
    min: MIN_SHELL_OUTPUT_BYTES,
    max: MAX_SHELL_OUTPUT_BYTES,
  }),
  deniedEnvVars: setting.stringList({
    label: 'Environment variables withheld',
    description:
      'Environment variables removed from commands, beyond the fixed allowlist (PATH, LANG, TERM, TZ, pagers) and what the operator passes (MANGO_SHELL_PASS_ENV). Exact names or patterns with * (e.g. LC_*).',
  }),
  ...PATH_ACCESS_SETTINGS,
};

type ShellLimits = Pick<SettingValues<typeof SHELL_SETTINGS>, 'timeoutSeconds' | 'maxOutputBytes'>;

/** What a shell tool returns: the command's result and, when a stream was cut, how to see the rest. */
export type ShellToolResult = ShellCommandResult & { notice?: string };

function describeTool(kind: ShellKind, limits: ShellLimits): string {
  return (
    `Runs one command with ${INVOCATIONS[kind]} and returns {exitCode, signal, stdout, stderr, truncated, ` +
    'termination, durationMs}; a non-zero exit code is a normal result. The command runs in "cwd" (default: ' +
    'the chat working directory) with stdin closed, no pager and no git prompts, so it must not wait for ' +
    `input. It is killed after ${limits.timeoutSeconds} seconds, and anything it started in the background ` +
    'is killed when it finishes, so do not start servers or watchers with it. Each of stdout and stderr ' +
    `keeps its first ${limits.maxOutputBytes} bytes (truncated: true when more was dropped): filter ` +
    'long output (grep, head, tail) rather than printing it all.'
  );
}

function shellParameters(kind: ShellKind) {
  return Type.Object({
    command: Type.String({
      description: `The command line, run as ${INVOCATIONS[kind]} "<command>".`,
      minLength: 1,
      maxLength: MAX_SHELL_COMMAND_LENGTH,
    }),
    cwd: Type.Optional(
      Type.String({
        description:
          'Working directory: absolute, ~-prefixed, or relative to the chat working directory. Default: the chat working directory.',
        minLength: 1,
        maxLength: 4096,
      }),
    ),
  });
}

function excerpt(text: string): string {
  const shown = capCharacters(text, TIMEOUT_OUTPUT_EXCERPT_CHARACTERS);
  return shown.cut ? shown.text + excerptCutMarker(text.length, shown.text.length) : text;
}

function timeoutMessage(kind: ShellKind, timeoutSeconds: number, result: ShellCommandResult): string {
  let message =
    `The ${kind} command ran out of its ${timeoutSeconds}-second budget (timeoutSeconds) and was killed ` +
    'with everything it started. Make it finish sooner (smaller input, a bounded wait), or ask the user ' +
    'to raise the timeout in the tool settings.';
  if (result.stdout) message += `\nstdout before it was killed:\n${excerpt(result.stdout)}`;
  if (result.stderr) message += `\nstderr before it was killed:\n${excerpt(result.stderr)}`;
  return message;
}

/** What a command whose process the OOM killer ended is told. */
export function memoryShareNotice(limitBytes: number): string {
  return (
    `The kernel killed a process of this command: this user's memory share ran out (${formatBytes(limitBytes)} ` +
    'for all their commands and MCP servers together, MANGO_SANDBOX_USER_MEMORY). Use less memory at once ' +
    '(smaller input, fewer parallel jobs, less in /tmp), or ask the operator to raise the share.'
  );
}

/** The RegisteredTool for one shell kind; register it only when the interpreter exists. */
export function buildShellTool(kind: ShellKind, options: BuildShellToolOptions = {}): RegisteredTool {
  const sandboxOf = options.sandbox ?? hostShellSandbox;
  const unavailableReason = (): string | undefined => {
    const status = sandboxOf().status();
    return status.available ? undefined : status.reason;
  };
  return defineTool({
    name: kind,
    description: describeTool(kind, {
      timeoutSeconds: DEFAULT_SHELL_TIMEOUT_SECONDS,
      maxOutputBytes: DEFAULT_SHELL_OUTPUT_BYTES,
    }),
    parameters: shellParameters(kind),
    advertise: (limits) => ({ description: describeTool(kind, limits) }),
    // A command may do anything the server user can, including reaching the network.
    traits: {
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: true,
      confirmBeforeEnable: true,
      resultView: 'command_output',
      approvalDefault: 'always',
    },
    title: TITLES[kind],
    summary: `Lets the model run ${TITLES[kind]} commands on the server, in the chat working directory, in an OS sandbox that shows only the chat's workspaces, with no network, a time limit, capped output and an environment without the server's secrets. Off by default.`,
    category: 'system',
    enabledByDefault: false,
    canDisable: true,
    // PowerShell's command grammar is not parsed, so it has no command rules.
    settings: kind === 'powershell' ? SHELL_SETTINGS : { ...SHELL_SETTINGS, ...SHELL_APPROVAL_SETTINGS },
    // On a timeout or cancel the group is killed at once and the failure below (with the output so far)
    // reaches executeTool within its grace window.
    reportsPartialResultOnAbort: true,
    isAvailable: () => unavailableReason() === undefined,
    unavailableReason,
    notice: () => shellToolNotice(sandboxOf().status()),
    execute: ({ command, cwd }, context, limits) =>
      runShellToolCall(
        { kind, command, cwd, interpreter: options.interpreter, sandbox: sandboxOf },
        context,
        limits,
      ),
  });
}

/** What one call of a shell tool runs: its shell, command and directory, and where it runs. */
interface ShellToolCall {
  kind: ShellKind;
  command: string;
  cwd: string | undefined;
  interpreter: ShellInterpreter | undefined;
  /** Read after the command is checked, as every use of the sandbox is. */
  sandbox: () => ShellSandbox;
}

/**
 * One call: refused unless the sandbox runs, the interpreter exists and the working directory is within
 * the chat's reach; then run in the sandbox, a timeout or a cancel thrown as such, and the notices of a
 * memory kill or a cut output added to the result.
 */
async function runShellToolCall(
  call: ShellToolCall,
  context: ToolContext,
  limits: Pick<SettingValues<typeof SHELL_SETTINGS>, 'timeoutSeconds' | 'maxOutputBytes' | 'deniedEnvVars'>,
): Promise<ShellToolResult> {
  const { kind, command } = call;
  const cwdArgument = call.cwd;
  if (command.includes('\0')) {
    throw new ToolArgumentError('Argument "command" contains a NUL byte, which no command line may contain.');
  }
  const sandbox = call.sandbox();
  const status = sandbox.status();
  if (!status.available) throw new ToolError('execution_error', status.reason);
  const interpreter = call.interpreter ?? findShellInterpreter(kind);
  if (!interpreter) {
    throw new ToolError('execution_error', `The ${kind} interpreter is not available on this machine.`);
  }
  const directory = await resolveShellWorkingDirectory(cwdArgument, context);
  const reachable = context.reachable;
  if (accessAt(reachable, directory.real) === undefined) {
    throw new ToolPermissionError(
      `Working directory ${directory.real} is outside what this chat may reach (${reachable.roots.map((root) => root.path).join(', ')}).`,
    );
  }
  const result = await sandbox.run({
    shell: kind,
    command,
    cwd: directory.real,
    timeoutMs: limits.timeoutSeconds * 1000,
    maxOutputBytes: limits.maxOutputBytes,
    signal: context.signal,
    reachable,
    deniedPaths: [...(await getAccessPolicy(context)).deniedLocations],
    deniedEnvVars: limits.deniedEnvVars,
    interpreterPath: interpreter.executable,
    userId: context.userId,
    chatId: context.chatId,
  });
  // executeTool's budget usually fires first; runShellCommand reads its timeout reason as timed_out.
  if (result.termination.kind === 'timed_out') {
    throw new ToolTimeoutError(timeoutMessage(kind, limits.timeoutSeconds, result));
  }
  if (result.termination.kind === 'aborted') {
    throw new ToolCancelledError(`The ${kind} command was cancelled and killed with everything it started.`);
  }
  const output: ShellToolResult = { ...result, cwd: directory.absolute };
  const notices = [
    ...(result.termination.kind === 'memory' ? [memoryShareNotice(result.termination.limitBytes)] : []),
    ...(result.truncated ? [shellOutputCapNotice(limits.maxOutputBytes)] : []),
  ];
  if (notices.length > 0) output.notice = notices.join('\n');
  return output;
}
