/**
 * `mango chat`: the chat turn loop in a terminal, without a server. Each line read is one user
 * message; the model's text streams to stdout, each tool call and result is shown as it happens
 * (`turn-printer.ts`), and Ctrl-C cancels the running turn. History lives in memory for the session.
 *
 * Without `--user` the tools run in operator mode (the whole filesystem minus the protected set); with
 * `--user NAME` they reach exactly what NAME's chats reach (`cli-tool-access.ts`), run as NAME (their
 * processes count against NAME's limit), and NAME's external MCP tools join the builtins
 * (`cli-tool-registry.ts`).
 *
 * A call that needs the user's approval is asked about on the terminal (`terminal-approval-gate.ts`),
 * and denied when stdin is not a terminal.
 *
 * The provider factory is injected (the providers layer builds adapters from the environment), so
 * tests drive the command with a scripted provider.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createTerminalApprovalGate } from '../../approvals/terminal-approval-gate.ts';
import { readVariable } from '../../config/environment-variables.ts';
import { dataDirectoryOf } from '../../config.ts';
import type { ConversationItem } from '../../contracts/conversation-item.ts';
import { PROVIDER_IDS, type ProviderId } from '../../contracts/provider-id.ts';
import type { TurnDoneReason } from '../../contracts/turn-event.ts';
import { runModelLoop } from '../../model-loop/model-loop.ts';
import { buildSystemPrompt } from '../../model-loop/system-prompt.ts';
import type { ModelProvider } from '../../providers/model-provider.ts';
import { getEnabledToolRuntime } from '../../settings/tool-runtime.ts';
import { InMemoryToolSettingsRepository } from '../../settings/tool-settings-repository.ts';
import type { ExecuteToolOptions } from '../../tools/execution.ts';
import { InMemoryFreshnessLedger } from '../../tools/freshness-ledger.ts';
import { defaultToolRegistry } from '../../tools/registry.ts';
import { UserCallSlots } from '../../tools/user-call-slots.ts';
import { withCliFileWorkers } from '../cli-file-workers.ts';
import { resolveCliAccess } from '../cli-tool-access.ts';
import { withCliToolRegistry } from '../cli-tool-registry.ts';
import { createTurnPrinter } from '../turn-printer.ts';
import { type CliCommand, type CliIo, UsageError } from '../usage-error.ts';

export const CHAT_USAGE = `Usage:
  mango chat --provider P --model M [--user NAME] [--cwd DIR] [--unrestricted] [--system TEXT]
             [--enable TOOL]... [--max-iterations N] [--message TEXT]
    P: ${PROVIDER_IDS.join(' | ')}. Reads one message per line from stdin (or runs one --message and
    exits: 0 when the turn completed, 1 otherwise). Ctrl-C cancels the running turn.
    Without --user: operator mode, tools reach the whole filesystem except the server's own directories
    and /proc, /sys, /dev. With --user NAME: only NAME's workspaces, confined to --cwd (default: NAME's
    personal workspace) unless --unrestricted and NAME is allowed it.`;

export interface ChatCommandDependencies {
  /** Builds a provider from the environment; throws with a message when it is not configured. */
  createProvider: (providerId: ProviderId, env: CliIo['env']) => ModelProvider;
  /** The user's messages, one per line (default: stdin). */
  readLines?: () => AsyncIterable<string>;
  /** Calls `listener` on Ctrl-C until the returned function is called (default: SIGINT). */
  onInterrupt?: (listener: () => void) => () => void;
  /** Registry and timers for tool execution (tests use their own). */
  executeOptions?: ExecuteToolOptions;
  /** Whether to print a prompt before each message (default: stdin is a terminal). */
  interactive?: boolean;
  /**
   * Whether a person answers approval questions on stdin (default: stdin is a terminal). When false, a
   * call that needs approval is denied ("no terminal to ask on").
   */
  stdinIsTerminal?: boolean;
  /** The approval timeout's timer (tests fire it without waiting). */
  approvalTimers?: ExecuteToolOptions['timers'];
}

async function* stdinLines(): AsyncIterable<string> {
  for await (const line of console) yield line;
}

function sigintListener(listener: () => void): () => void {
  process.on('SIGINT', listener);
  return () => process.off('SIGINT', listener);
}

function parseIterations(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const iterations = Number(value);
  if (!/^\d+$/.test(value) || iterations < 1 || iterations > 1000) {
    throw new UsageError(`--max-iterations must be an integer from 1 to 1000; got "${value}".`);
  }
  return iterations;
}

export function createChatCommand(dependencies: ChatCommandDependencies): CliCommand {
  return async (argv, io) => {
    const { values } = parseArgs({
      args: argv,
      options: {
        provider: { type: 'string' },
        model: { type: 'string' },
        user: { type: 'string' },
        cwd: { type: 'string' },
        unrestricted: { type: 'boolean' },
        system: { type: 'string' },
        enable: { type: 'string', multiple: true },
        'max-iterations': { type: 'string' },
        message: { type: 'string' },
      },
      strict: true,
    });
    const providerId = values.provider;
    if (providerId === undefined || !(PROVIDER_IDS as readonly string[]).includes(providerId)) {
      throw new UsageError(`--provider must be one of: ${PROVIDER_IDS.join(', ')}.`);
    }
    if (!values.model?.trim()) throw new UsageError('--model is required.');
    if (values.user === '') throw new UsageError('--user needs a user NAME.');
    const maxIterations = parseIterations(values['max-iterations']);
    const { userId, access, confined } = await resolveCliAccess(io, {
      userName: values.user,
      cwd: values.cwd,
      unrestricted: values.unrestricted ?? false,
    });
    let provider: ModelProvider;
    try {
      provider = dependencies.createProvider(providerId as ProviderId, io.env);
    } catch (error) {
      io.stderr(`mango chat: provider "${providerId}" is not available: ${(error as Error).message}\n`);
      return 1;
    }
    // The session's own share of tool calls (its read-only calls run side by side), as a server's.
    const callSlots = new UserCallSlots(readVariable(io.env, 'MANGO_USER_MAX_TOOL_CALLS'));
    const builtins = dependencies.executeOptions?.registry ?? defaultToolRegistry;
    // With --user, that user's external MCP tools join the builtins for the whole session.
    const sessionUser = values.user === undefined ? undefined : userId;
    return withCliFileWorkers(io, 'mango chat', values.user, () =>
      withCliToolRegistry(io, sessionUser, builtins, async (registry) => {
        const settings = new InMemoryToolSettingsRepository();
        for (const name of values.enable ?? []) {
          if (!registry.get(name)) throw new UsageError(`--enable ${name}: no such tool.`);
          await settings.put('cli', name, { enabled: true });
        }

        const tools = await getEnabledToolRuntime(settings, 'cli', { registry });
        const systemPrompt = buildSystemPrompt({
          reachable: access.reachable,
          confined,
          chatSystemPrompt: values.system,
        });
        const chatId = `cli-${randomUUID()}`;
        const ledger = new InMemoryFreshnessLedger();
        const history: ConversationItem[] = [];
        const print = createTurnPrinter(io.stdout);
        const onInterrupt = dependencies.onInterrupt ?? sigintListener;
        // One reader of stdin for both the messages and the answers to approval questions: a question is
        // asked only while a turn runs, when the message loop is not reading.
        const lines = (dependencies.readLines ?? stdinLines)()[Symbol.asyncIterator]();
        const approvals = createTerminalApprovalGate({
          isTerminal: dependencies.stdinIsTerminal ?? process.stdin.isTTY === true,
          readLine: async () => {
            const next = await lines.next();
            return next.done ? undefined : next.value;
          },
          write: io.stdout,
          timers: dependencies.approvalTimers,
        });

        const runOne = async (message: string): Promise<TurnDoneReason> => {
          const controller = new AbortController();
          const stopListening = onInterrupt(() => controller.abort());
          let reason: TurnDoneReason = 'error';
          try {
            for await (const event of runModelLoop({
              provider,
              model: values.model as string,
              systemPrompt,
              history: [...history],
              userText: message,
              tools,
              toolContext: {
                userId,
                chatId,
                ...access,
                ledger,
                dataDirectory: dataDirectoryOf(io.env, io.cwd),
              },
              signal: controller.signal,
              limits: { maxIterations },
              onItem: (item) => {
                history.push(item);
              },
              executeOptions: { callSlots, ...dependencies.executeOptions, registry },
              approvals,
            })) {
              print(event);
              if (event.type === 'done') reason = event.reason;
            }
          } finally {
            stopListening();
          }
          return reason;
        };

        if (values.message !== undefined) {
          return (await runOne(values.message)) === 'completed' ? 0 : 1;
        }
        const interactive = dependencies.interactive ?? process.stdin.isTTY === true;
        if (interactive) io.stdout('> ');
        for (let next = await lines.next(); !next.done; next = await lines.next()) {
          if (next.value.trim() !== '') await runOne(next.value);
          if (interactive) io.stdout('> ');
        }
        return 0;
      }),
    );
  };
}
