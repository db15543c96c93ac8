/**
 * `mango tool list | call | replay`: try tools without a model, and reproduce a model's call sequence.
 * Without `--user` the calls run in operator mode (the whole filesystem minus the protected set); with
 * `--user NAME` they reach exactly what that user's chats reach (`cli-tool-access.ts`).
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { dataDirectoryOf } from '../../config.ts';
import { ToolParameterError } from '../../tools/errors.ts';
import { executeTool } from '../../tools/execution.ts';
import { InMemoryFreshnessLedger } from '../../tools/freshness-ledger.ts';
import { getTool, listTools } from '../../tools/registry.ts';
import { mergeToolSettings } from '../../tools/tool-settings-resolver.ts';
import type { EffectiveToolSettings, SavedToolSettings, ToolCallContext } from '../../tools/types.ts';
import { withCliFileWorkers } from '../cli-file-workers.ts';
import { resolveCliAccess } from '../cli-tool-access.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { parseAssignment, parseSettingValue } from '../settings-overrides.ts';
import { type CliCommand, type CliIo, UsageError } from '../usage-error.ts';

export const TOOL_USAGE = `Usage:
  mango tool list [--json]
  mango tool call NAME [ARGS_JSON] [--user NAME] [--cwd DIR] [--unrestricted] [--enable] [--set PARAM=VALUE]...
  mango tool replay CALLS.jsonl [--user NAME] [--cwd DIR] [--unrestricted] [--enable TOOL]... [--set TOOL.PARAM=VALUE]...
    Without --user: operator mode, tools reach the whole filesystem except the server's own directories
    (data, installation, workspaces) and /proc, /sys, /dev. With --user NAME: only NAME's workspaces, confined
    to --cwd (default: NAME's personal workspace) unless --unrestricted and NAME is allowed it.`;

/**
 * Where a command gets a user's saved settings from. The default has none (defaults only); the
 * server wires a database-backed source for `--user NAME`.
 */
export interface SavedSettingsSource {
  userId: string;
  /** `--user NAME`; undefined = operator mode. */
  userName?: string;
  load(toolName: string): Promise<SavedToolSettings | undefined>;
}

const defaultsOnly: SavedSettingsSource = { userId: 'cli', load: async () => undefined };

function effectiveSettings(
  toolName: string,
  saved: SavedToolSettings | undefined,
  overrides: SavedToolSettings,
): EffectiveToolSettings {
  const tool = getTool(toolName);
  if (!tool) return { enabled: false, parameters: {} };
  try {
    return mergeToolSettings(tool, saved, overrides);
  } catch (error) {
    if (error instanceof ToolParameterError) throw new UsageError(error.message);
    throw error;
  }
}

function parseJsonArguments(raw: string | undefined, where: string): unknown {
  if (raw === undefined) return {};
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new UsageError(`${where} is not valid JSON: ${(error as Error).message}`);
  }
}

async function baseContext(
  io: CliIo,
  source: SavedSettingsSource,
  cwd: string | undefined,
  unrestricted: boolean,
): Promise<ToolCallContext> {
  const { userId, access } = await resolveCliAccess(io, { userName: source.userName, cwd, unrestricted });
  return {
    userId: source.userName === undefined ? source.userId : userId,
    chatId: `cli-${randomUUID()}`,
    ...access,
    ledger: new InMemoryFreshnessLedger(),
    dataDirectory: dataDirectoryOf(io.env, io.cwd),
  };
}

async function listCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' } }, strict: true });
  const rows = listTools().map((tool) => {
    const available = !tool.isAvailable || tool.isAvailable();
    const reason = available ? undefined : tool.unavailableReason?.();
    return {
      name: tool.definition.name,
      category: tool.settings.category,
      enabledByDefault: tool.settings.enabledByDefault,
      available,
      ...(reason === undefined ? {} : { unavailableReason: reason }),
      description: tool.definition.description.split('\n')[0] ?? '',
    };
  });
  if (values.json) {
    io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(4, ...rows.map((row) => row.name.length));
  const columns = Number.parseInt(io.env.COLUMNS ?? '', 10);
  const lineWidth = Number.isFinite(columns) && columns >= 40 ? columns : DEFAULT_LIST_WIDTH;
  for (const row of rows) {
    const state = row.enabledByDefault ? 'on ' : 'off';
    const text = row.available
      ? row.description
      : `unavailable: ${row.unavailableReason ?? 'not configured.'}`;
    const start = `${row.name.padEnd(width)}  ${row.category.padEnd(11)} ${state}  `;
    io.stdout(`${start}${summaryLine(text, lineWidth - start.length)}\n`);
  }
  return 0;
}

/** Line width of `mango tool list` when `COLUMNS` does not say (`--json` has the full descriptions). */
const DEFAULT_LIST_WIDTH = 100;

/**
 * A description's first sentence, cut at a word to fit `room` characters (with `…`), so each tool is
 * exactly one line.
 */
export function summaryLine(description: string, room: number): string {
  const flat = description.replace(/\s+/g, ' ').trim();
  const sentence = /^.*?[.!?](?=\s|$)/.exec(flat)?.[0] ?? flat;
  if (sentence.length <= room) return sentence;
  const cut = sentence.slice(0, Math.max(1, room - 1));
  const atWord = cut.replace(/\s+\S*$/, '');
  return `${atWord.length > room / 2 ? atWord : cut}…`;
}

async function callCommand(argv: string[], io: CliIo, source: SavedSettingsSource): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    cwd: { type: 'string' },
    unrestricted: { type: 'boolean' },
    enable: { type: 'boolean' },
    set: { type: 'string', multiple: true },
  });
  const [name, rawArgs, ...extra] = positionals;
  if (name === undefined) throw new UsageError('mango tool call needs a tool NAME.');
  if (extra.length > 0) throw new UsageError(`Unexpected arguments: ${extra.join(' ')}`);
  if (!getTool(name)) {
    // Still go through executeTool so the envelope is the one a model would see.
    const context = await baseContext(io, source, values.cwd, values.unrestricted ?? false);
    const envelope = await executeTool(name, {}, context);
    io.stdout(`${JSON.stringify(envelope, null, 2)}\n`);
    return 1;
  }
  const parameters: Record<string, unknown> = {};
  for (const assignment of values.set ?? []) {
    const { name: parameter, value } = parseAssignment(assignment);
    parameters[parameter] = value;
  }
  const overrides: SavedToolSettings = {
    ...(values.enable ? { enabled: true } : {}),
    ...(Object.keys(parameters).length > 0 ? { parameters } : {}),
  };
  const settings = effectiveSettings(name, await source.load(name), overrides);
  const context = await baseContext(io, source, values.cwd, values.unrestricted ?? false);
  const args = parseJsonArguments(rawArgs, 'ARGS_JSON');
  const envelope = await withCliFileWorkers(io, 'mango tool', source.userName, () =>
    executeTool(name, args, context, settings),
  );
  io.stdout(`${JSON.stringify(envelope, null, 2)}\n`);
  return envelope.ok ? 0 : 1;
}

async function replayCommand(argv: string[], io: CliIo, source: SavedSettingsSource): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    cwd: { type: 'string' },
    unrestricted: { type: 'boolean' },
    enable: { type: 'string', multiple: true },
    set: { type: 'string', multiple: true },
  });
  const [file, ...extra] = positionals;
  if (file === undefined) throw new UsageError('mango tool replay needs a CALLS.jsonl file.');
  if (extra.length > 0) throw new UsageError(`Unexpected arguments: ${extra.join(' ')}`);

  const overrides = new Map<string, SavedToolSettings>();
  const overridesFor = (toolName: string) => {
    let entry = overrides.get(toolName);
    if (!entry) {
      entry = {};
      overrides.set(toolName, entry);
    }
    return entry;
  };
  for (const toolName of values.enable ?? []) overridesFor(toolName).enabled = true;
  for (const assignment of values.set ?? []) {
    const { name, value } = parseAssignment(assignment);
    const dot = name.indexOf('.');
    if (dot <= 0)
      throw new UsageError(`replay --set expects TOOL.PARAM=VALUE, got ${JSON.stringify(assignment)}.`);
    const entry = overridesFor(name.slice(0, dot));
    entry.parameters = { ...entry.parameters, [name.slice(dot + 1)]: value };
  }

  let text: string;
  try {
    text = await readFile(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  const calls = text
    .split('\n')
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter((entry) => entry.line.length > 0)
    .map(({ line, number }) => {
      const parsed = parseJsonArguments(line, `Line ${number}`) as { name?: unknown; args?: unknown };
      if (typeof parsed !== 'object' || parsed === null || typeof parsed.name !== 'string') {
        throw new UsageError(`Line ${number} must be {"name": string, "args": object}.`);
      }
      return { name: parsed.name, args: parsed.args ?? {} };
    });

  const context = await baseContext(io, source, values.cwd, values.unrestricted ?? false);
  const settingsCache = new Map<string, EffectiveToolSettings>();
  await withCliFileWorkers(io, 'mango tool', source.userName, async () => {
    for (const call of calls) {
      let settings = settingsCache.get(call.name);
      if (!settings && getTool(call.name)) {
        settings = effectiveSettings(call.name, await source.load(call.name), overrides.get(call.name) ?? {});
        settingsCache.set(call.name, settings);
      }
      const envelope = await executeTool(call.name, call.args, context, settings);
      io.stdout(`${JSON.stringify(envelope)}\n`);
    }
  });
  return 0;
}

/** Builds the `tool` command; `resolveSource` turns `--user NAME` into a settings source (server issue). */
export function createToolCommand(
  resolveSource?: (argv: string[], io: CliIo) => Promise<{ argv: string[]; source: SavedSettingsSource }>,
): CliCommand {
  return async (argv, io) => {
    const [subcommand, ...rest] = argv;
    const { argv: remaining, source } = resolveSource
      ? await resolveSource(rest, io)
      : { argv: rest, source: defaultsOnly };
    switch (subcommand) {
      case 'list':
        return listCommand(remaining, io);
      case 'call':
        return callCommand(remaining, io, source);
      case 'replay':
        return replayCommand(remaining, io, source);
      default:
        throw new UsageError(
          subcommand ? `Unknown tool subcommand "${subcommand}".` : 'mango tool needs a subcommand.',
        );
    }
  };
}

export { parseSettingValue };
