/**
 * buildShellTool (spec: "bash / zsh / powershell"): the one RegisteredTool behind the three shell
 * tools, which differ only by interpreter. Disabled by default; settings `timeoutSeconds` (5–600, default
 * 30), `maxOutputBytes` (1 KB–1 MB per stream, default 100 KB), `allowedEnvVars` / `deniedEnvVars`, and
 * the shared `allowedPaths` / `deniedPaths` that govern `cwd`.
 *
 * Outcomes: any exit (zero or not) and a death by signal are results (`ShellCommandResult`); a timeout is
 * a `timeout` error naming the budget, a caller's abort is `cancelled` (spec: "Settings Policy": only
 * genuine timeouts surface the timeout error message).
 */
import {
  clampIntegerSetting,
  getStringListSetting,
  optionalString,
  readArgumentsObject,
  requireString,
} from '../arg-parsing.ts';
import { ToolArgumentError, ToolCancelledError, ToolTimeoutError } from '../errors.ts';
import { MAX_TOOL_TIMEOUT_SECONDS, MIN_TOOL_TIMEOUT_SECONDS } from '../execution.ts';
import {
  PATH_POLICY_DEFAULT_PARAMETERS,
  PATH_POLICY_PARAMETER_DESCRIPTORS,
} from '../fs/path-policy-settings.ts';
import type { EffectiveToolSettings, RegisteredTool, ToolContext, ToolDefinition } from '../types.ts';
import {
  type RunShellCommandOptions,
  runShellCommand,
  type ShellCommandResult,
} from './run-shell-command.ts';
import { buildShellEnvironment } from './shell-environment.ts';
import { findShellInterpreter, type ShellInterpreter, type ShellKind } from './shell-interpreter.ts';
import { resolveShellWorkingDirectory } from './shell-working-directory.ts';

export const DEFAULT_SHELL_TIMEOUT_SECONDS = 30;
export const MIN_SHELL_OUTPUT_BYTES = 1024;
export const MAX_SHELL_OUTPUT_BYTES = 1024 * 1024;
export const DEFAULT_SHELL_OUTPUT_BYTES = 100 * 1024;
/** Longest command line accepted from a model (a correctable error past it, not a truncation). */
export const MAX_SHELL_COMMAND_LENGTH = 100_000;
/** How much of the output a timeout error quotes, per stream. */
const TIMEOUT_OUTPUT_EXCERPT_CHARACTERS = 2000;

/** The I/O of a shell tool, swappable for tests or a remote runner (design: "Growing past one machine"). */
export interface ShellToolOperations {
  run(options: RunShellCommandOptions): Promise<ShellCommandResult>;
}

export interface BuildShellToolOptions {
  /** The located interpreter; defaults to findShellInterpreter(kind) at call time. */
  interpreter?: ShellInterpreter;
  operations?: ShellToolOperations;
}

const TITLES: Record<ShellKind, string> = { bash: 'Bash', zsh: 'Zsh', powershell: 'PowerShell' };

const INVOCATIONS: Record<ShellKind, string> = {
  bash: 'bash -c',
  zsh: 'zsh -c',
  powershell: 'powershell -NoProfile -NonInteractive -Command',
};

interface ShellLimits {
  timeoutSeconds: number;
  maxOutputBytes: number;
}

function readLimits(parameters: Readonly<Record<string, unknown>>): ShellLimits {
  return {
    timeoutSeconds: clampIntegerSetting(parameters, 'timeoutSeconds', {
      min: MIN_TOOL_TIMEOUT_SECONDS,
      max: MAX_TOOL_TIMEOUT_SECONDS,
      fallback: DEFAULT_SHELL_TIMEOUT_SECONDS,
    }),
    maxOutputBytes: clampIntegerSetting(parameters, 'maxOutputBytes', {
      min: MIN_SHELL_OUTPUT_BYTES,
      max: MAX_SHELL_OUTPUT_BYTES,
      fallback: DEFAULT_SHELL_OUTPUT_BYTES,
    }),
  };
}

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

function buildDefinition(kind: ShellKind, limits: ShellLimits): ToolDefinition {
  return {
    name: kind,
    description: describeTool(kind, limits),
    parameters: {
      type: 'object',
      properties: {
        command: {
          type: 'string',
          description: `The command line, run as ${INVOCATIONS[kind]} "<command>".`,
          minLength: 1,
          maxLength: MAX_SHELL_COMMAND_LENGTH,
        },
        cwd: {
          type: 'string',
          description:
            'Working directory: absolute, ~-prefixed, or relative to the chat working directory. Default: the chat working directory.',
          minLength: 1,
          maxLength: 4096,
        },
      },
      required: ['command'],
      additionalProperties: false,
    },
  };
}

function excerpt(text: string): string {
  return text.length > TIMEOUT_OUTPUT_EXCERPT_CHARACTERS
    ? `${text.slice(0, TIMEOUT_OUTPUT_EXCERPT_CHARACTERS)}…`
    : text;
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

const defaultOperations: ShellToolOperations = { run: runShellCommand };

/** The RegisteredTool for one shell kind; register it only when the interpreter exists. */
export function buildShellTool(kind: ShellKind, options: BuildShellToolOptions = {}): RegisteredTool {
  const operations = options.operations ?? defaultOperations;
  const defaultLimits: ShellLimits = {
    timeoutSeconds: DEFAULT_SHELL_TIMEOUT_SECONDS,
    maxOutputBytes: DEFAULT_SHELL_OUTPUT_BYTES,
  };
  return {
    definition: buildDefinition(kind, defaultLimits),
    buildDefinition: (settings: EffectiveToolSettings) =>
      buildDefinition(kind, readLimits(settings.parameters)),
    // A command may do anything the server user can, including reaching the network.
    traits: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
    settings: {
      title: TITLES[kind],
      description: `Lets the model run ${TITLES[kind]} commands on the server, in the chat working directory, with a time limit, capped output and an environment without the server's secrets. Off by default: turn it on only for users you trust with a shell.`,
      category: 'system',
      enabledByDefault: false,
      canDisable: true,
      defaultParameters: {
        timeoutSeconds: DEFAULT_SHELL_TIMEOUT_SECONDS,
        maxOutputBytes: DEFAULT_SHELL_OUTPUT_BYTES,
        allowedEnvVars: [],
        deniedEnvVars: [],
        ...PATH_POLICY_DEFAULT_PARAMETERS,
      },
      parameterDescriptors: [
        {
          name: 'timeoutSeconds',
          label: 'Timeout (seconds)',
          description:
            'A command still running after this many seconds is killed with everything it started.',
          type: 'integer',
          default: DEFAULT_SHELL_TIMEOUT_SECONDS,
          min: MIN_TOOL_TIMEOUT_SECONDS,
          max: MAX_TOOL_TIMEOUT_SECONDS,
        },
        {
          name: 'maxOutputBytes',
          label: 'Output cap per stream (bytes)',
          description:
            'stdout and stderr each keep at most this many bytes; the rest is dropped and the result says truncated.',
          type: 'integer',
          default: DEFAULT_SHELL_OUTPUT_BYTES,
          min: MIN_SHELL_OUTPUT_BYTES,
          max: MAX_SHELL_OUTPUT_BYTES,
        },
        {
          name: 'allowedEnvVars',
          label: 'Environment variables let through',
          description:
            'Server environment variables passed to commands even though their name or value looks like a credential. Exact names or patterns with * (e.g. SSH_AUTH_SOCK).',
          type: 'string_list',
          default: [],
        },
        {
          name: 'deniedEnvVars',
          label: 'Environment variables withheld',
          description:
            'Server environment variables never passed to commands, in addition to credential-like ones. Exact names or patterns with * (e.g. AWS_*). Wins over the allowed list.',
          type: 'string_list',
          default: [],
        },
        ...PATH_POLICY_PARAMETER_DESCRIPTORS,
      ],
    },
    // On a timeout or cancel the group is killed at once and the failure below (with the output so far)
    // reaches executeTool within its grace window.
    reportsPartialResultOnAbort: true,
    execute: async (rawArgs: unknown, context: ToolContext): Promise<ShellCommandResult> => {
      const args = readArgumentsObject(rawArgs);
      const command = requireString(args, 'command', {
        minLength: 1,
        maxLength: MAX_SHELL_COMMAND_LENGTH,
        meaning: 'the command line to run',
      });
      if (command.includes('\0')) {
        throw new ToolArgumentError(
          'Argument "command" contains a NUL byte, which no command line may contain.',
        );
      }
      const cwdArgument = optionalString(args, 'cwd', {
        minLength: 1,
        maxLength: 4096,
        meaning: 'a directory',
      });
      const directory = await resolveShellWorkingDirectory(cwdArgument, context);
      const parameters = context.settings.parameters;
      const limits = readLimits(parameters);
      const result = await operations.run({
        shell: kind,
        command,
        cwd: directory.real,
        timeoutMs: limits.timeoutSeconds * 1000,
        maxOutputBytes: limits.maxOutputBytes,
        signal: context.signal,
        environment: buildShellEnvironment({
          allowedEnvVars: getStringListSetting(parameters, 'allowedEnvVars'),
          deniedEnvVars: getStringListSetting(parameters, 'deniedEnvVars'),
        }),
        interpreter: options.interpreter ?? findShellInterpreter(kind),
      });
      // executeTool's budget usually fires first; runShellCommand reads its timeout reason as timed_out.
      if (result.termination.kind === 'timed_out') {
        throw new ToolTimeoutError(timeoutMessage(kind, limits.timeoutSeconds, result));
      }
      if (result.termination.kind === 'aborted') {
        throw new ToolCancelledError(
          `The ${kind} command was cancelled and killed with everything it started.`,
        );
      }
      return { ...result, cwd: directory.absolute };
    },
  };
}
