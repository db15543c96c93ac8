/**
 * The operator's file of external MCP servers (its path in `MANGO_MCP_SERVERS`), in the
 * `{"mcpServers": {"name": {…}}}` shape MCP clients share, read strictly: every server is either a
 * program started on stdio (`command`, `args`, `env`, plus Mango's `network`, `stateVariable`,
 * `stateFile` and `packageDirectory`) or a Streamable HTTP endpoint (`url`, `headers`). An unknown key,
 * a wrong type, a relative path or a name no tool name can carry is a `ConfigError` that names the file,
 * the server, the field, what it expects and what it got; nothing is silently dropped or defaulted.
 * Header values may be secrets, so an error never quotes them.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { ConfigError } from './config-error.ts';

/**
 * A server name: what `mcp__<server>__<tool>` tool names and the settings API carry. No `__` and no
 * final `_`, so the `__` after the server name is the one that ends it: `a__b` + `c` and `a` + `b__c`
 * cannot both name `mcp__a__b__c`.
 */
export const MCP_SERVER_NAME_PATTERN = /^(?=[A-Za-z0-9_-]{1,32}$)[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*(?<!_)$/;
export const MCP_SERVER_NAME_RULE =
  '1–32 letters, digits, _ or -, starting with a letter or digit, without "__" or a final "_"';

/** `none`: the program gets an empty network namespace. `host`: it shares the server's network. */
export type McpServerNetwork = 'none' | 'host';

export interface StdioMcpServerDeclaration {
  name: string;
  transport: 'stdio';
  /** The program, absolute or looked up on `PATH`. */
  command: string;
  args: string[];
  /** Variables the program receives beyond the sandbox's allowlist. */
  env: Record<string, string>;
  network: McpServerNetwork;
  /** A variable set to the user's own state directory (or `stateFile` inside it). */
  stateVariable?: string;
  /** A file name inside the state directory that `stateVariable` points at instead of the directory. */
  stateFile?: string;
  /** The program's own files, mounted read-only in its sandbox (absolute). */
  packageDirectory?: string;
}

export interface HttpMcpServerDeclaration {
  name: string;
  transport: 'http';
  url: string;
  headers: Record<string, string>;
}

export type McpServerDeclaration = StdioMcpServerDeclaration | HttpMcpServerDeclaration;

const STDIO_KEYS = [
  'type',
  'command',
  'args',
  'env',
  'network',
  'stateVariable',
  'stateFile',
  'packageDirectory',
];
const HTTP_KEYS = ['type', 'url', 'headers'];
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value === 'number' ? 'the number' : 'the value'} ${String(value)}`;
}

class FileProblems {
  constructor(readonly source: string) {}

  fail(where: string, expected: string, got: unknown, quote = true): never {
    const received = quote ? describe(got) : 'another value (not shown: it may be a secret)';
    throw new ConfigError(
      `MANGO_MCP_SERVERS file ${this.source}: ${where} must be ${expected}, got ${received}.`,
      'MANGO_MCP_SERVERS',
    );
  }

  unknownKeys(where: string, value: Record<string, unknown>, allowed: readonly string[]): void {
    const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
    if (unknown.length > 0) {
      throw new ConfigError(
        `MANGO_MCP_SERVERS file ${this.source}: ${where} has unknown field${unknown.length > 1 ? 's' : ''} ${unknown
          .map((key) => JSON.stringify(key))
          .join(', ')}; the fields are ${allowed.join(', ')}.`,
        'MANGO_MCP_SERVERS',
      );
    }
  }

  stringMap(where: string, value: unknown, keyPattern: RegExp, keyExpected: string, secret: boolean) {
    if (value === undefined) return {};
    if (!isRecord(value)) this.fail(where, 'an object of strings', value);
    const result: Record<string, string> = {};
    for (const [key, entry] of Object.entries(value)) {
      if (!keyPattern.test(key)) this.fail(`${where} key`, keyExpected, key);
      if (typeof entry !== 'string') this.fail(`${where}.${key}`, 'a string', entry, !secret);
      result[key] = entry;
    }
    return result;
  }
}

function parseStdio(problems: FileProblems, name: string, raw: Record<string, unknown>) {
  const where = `mcpServers.${name}`;
  problems.unknownKeys(where, raw, STDIO_KEYS);
  if (typeof raw.command !== 'string' || raw.command.trim() === '')
    problems.fail(`${where}.command`, 'a non-empty string', raw.command);
  const args = raw.args ?? [];
  if (!Array.isArray(args) || !args.every((item) => typeof item === 'string'))
    problems.fail(`${where}.args`, 'an array of strings', args);
  const network = raw.network ?? 'none';
  if (network !== 'none' && network !== 'host')
    problems.fail(`${where}.network`, '"none" or "host"', network);
  const server: StdioMcpServerDeclaration = {
    name,
    transport: 'stdio',
    command: raw.command,
    args: [...(args as string[])],
    env: problems.stringMap(`${where}.env`, raw.env, VARIABLE_NAME, 'a variable name', true),
    network,
  };
  if (raw.stateVariable !== undefined) {
    if (typeof raw.stateVariable !== 'string' || !VARIABLE_NAME.test(raw.stateVariable))
      problems.fail(`${where}.stateVariable`, 'a variable name (letters, digits, _)', raw.stateVariable);
    if (raw.stateVariable in server.env)
      problems.fail(`${where}.stateVariable`, 'a variable that env does not also set', raw.stateVariable);
    server.stateVariable = raw.stateVariable;
  }
  if (raw.stateFile !== undefined) {
    if (server.stateVariable === undefined)
      problems.fail(`${where}.stateFile`, 'given together with stateVariable', raw.stateFile);
    if (typeof raw.stateFile !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(raw.stateFile))
      problems.fail(`${where}.stateFile`, 'a plain file name (letters, digits, . _ -)', raw.stateFile);
    server.stateFile = raw.stateFile;
  }
  if (raw.packageDirectory !== undefined) {
    if (typeof raw.packageDirectory !== 'string' || !isAbsolute(raw.packageDirectory))
      problems.fail(`${where}.packageDirectory`, 'an absolute path', raw.packageDirectory);
    server.packageDirectory = raw.packageDirectory;
  }
  return server;
}

function parseHttp(problems: FileProblems, name: string, raw: Record<string, unknown>) {
  const where = `mcpServers.${name}`;
  problems.unknownKeys(where, raw, HTTP_KEYS);
  let url: URL | undefined;
  try {
    url = typeof raw.url === 'string' ? new URL(raw.url) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    problems.fail(`${where}.url`, 'an http:// or https:// URL', raw.url);
  if (url.username !== '' || url.password !== '')
    problems.fail(`${where}.url`, 'a URL without user name or password (use headers)', raw.url, false);
  const server: HttpMcpServerDeclaration = {
    name,
    transport: 'http',
    url: url.href,
    headers: problems.stringMap(`${where}.headers`, raw.headers, HEADER_NAME, 'a header name', true),
  };
  return server;
}

/**
 * Parses the file's text. `source` names it in errors.
 * @throws ConfigError naming the file, the server and the field.
 */
export function parseMcpServersFile(text: string, source: string): McpServerDeclaration[] {
  const problems: FileProblems = new FileProblems(source);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `MANGO_MCP_SERVERS file ${source} is not valid JSON: ${(error as Error).message}`,
      'MANGO_MCP_SERVERS',
    );
  }
  if (!isRecord(document)) problems.fail('the document', 'an object {"mcpServers": {…}}', document);
  problems.unknownKeys('the document', document, ['mcpServers']);
  const servers = document.mcpServers;
  if (!isRecord(servers)) problems.fail('mcpServers', 'an object of servers by name', servers);
  const declarations: McpServerDeclaration[] = [];
  for (const [name, raw] of Object.entries(servers)) {
    if (!MCP_SERVER_NAME_PATTERN.test(name)) problems.fail('a server name', MCP_SERVER_NAME_RULE, name);
    if (!isRecord(raw)) problems.fail(`mcpServers.${name}`, 'an object', raw);
    const type = raw.type ?? (raw.url !== undefined ? 'http' : 'stdio');
    if (type === 'stdio') declarations.push(parseStdio(problems, name, raw));
    else if (type === 'http' || type === 'streamable-http') declarations.push(parseHttp(problems, name, raw));
    else if (type === 'sse')
      problems.fail(
        `mcpServers.${name}.type`,
        '"stdio" or "http" (the old SSE transport is not supported)',
        type,
      );
    else problems.fail(`mcpServers.${name}.type`, '"stdio" or "http"', type);
  }
  return declarations;
}

/** Reads and parses the file at `path`. @throws ConfigError when it cannot be read or is malformed. */
export function readMcpServersFile(path: string): McpServerDeclaration[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `MANGO_MCP_SERVERS names ${path}, which cannot be read: ${(error as Error).message}`,
      'MANGO_MCP_SERVERS',
    );
  }
  return parseMcpServersFile(text, path);
}
