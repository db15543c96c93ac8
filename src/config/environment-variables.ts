/**
 * Every environment variable Mango reads, declared once: its default, its meaning and its parser. The
 * operating manual's configuration table lists exactly these (a test compares them), and every reader
 * of a setting takes its value through `readVariable` or `readEnvironment`, so a variable has one
 * spelling, one default and one refusal message. A malformed value throws `ConfigError` naming the
 * variable, what it expects and what it got; it never silently becomes the default.
 *
 * Not declared here: what shell commands inherit (`PATH`, `LANG`…), which the shell passes on by name
 * without reading, and `COLUMNS`, a property of the terminal the CLI writes to.
 */
import {
  choiceVariable,
  diskQuotaVariable,
  integerVariable,
  listVariable,
  patternVariable,
  removedVariable,
  secretKeyVariable,
  textVariable,
  type VariableDeclaration,
} from './variable-parsers.ts';

/** Longest accepted provider stall limit or retry wait: one day (anything longer is a typo). */
const MAX_PROVIDER_SECONDS = 86_400;
/** Largest accepted MCP byte bound: 1 GiB (anything larger bounds nothing on one server). */
const MAX_MCP_BYTES = 1024 * 1024 * 1024;

export const ENVIRONMENT_VARIABLES = {
  HOST: textVariable({
    fallback: '127.0.0.1',
    defaultText: '`127.0.0.1`',
    meaning: 'interface the server listens on (loopback only by default)',
  }),
  PORT: integerVariable({
    fallback: 3000,
    minimum: 0,
    maximum: 65535,
    defaultText: '`3000`',
    meaning: 'TCP port, 0–65535 (`0` picks a free one and prints it)',
  }),
  MANGO_DATA_DIR: textVariable({
    fallback: 'data',
    defaultText: '`./data`',
    meaning:
      "the server's own directory, mode 0700: the SQLite database (`mango.db`) and generated files (images under `images/<userId>/`)",
  }),
  MANGO_MAX_UPLOAD_BYTES: integerVariable({
    fallback: 25 * 1024 * 1024,
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    unit: 'bytes',
    defaultText: '`26214400` (25 MiB)',
    meaning:
      'largest file uploaded into a workspace (files panel, `POST /api/workspaces/:id/files`); larger → 413',
  }),
  MANGO_USER_DISK_BYTES: diskQuotaVariable({
    defaultText: '(unset: no disk quotas)',
    meaning:
      "each user's disk quota as root (`5GiB`, or bytes): their personal workspace becomes an ext4 image of that size ([operating.md](operating.md#disk-quotas))",
  }),
  DATABASE_URL: patternVariable({
    pattern: /^postgres(ql)?:\/\//i,
    expected: 'a postgres:// or postgresql:// URL (leave it unset to use SQLite)',
    secret: true,
    defaultText: '(unset: SQLite)',
    meaning:
      '`postgres://user:password@host:5432/db` (or `postgresql://`) switches to PostgreSQL, same schema',
  }),
  MANGO_WORKSPACES_DIR: textVariable({
    defaultText: '`$XDG_DATA_HOME/mango/workspaces` (as root: `/var/lib/mango/workspaces`)',
    meaning:
      "where every user's personal workspace lives ([isolation.md](isolation.md)); must not overlap the data or installation directory",
  }),
  XDG_DATA_HOME: textVariable({
    defaultText: '`$HOME/.local/share`',
    meaning: 'base of the default `MANGO_WORKSPACES_DIR`',
  }),
  HOME: textVariable({
    defaultText: "the user's home directory",
    meaning: 'base of the default `XDG_DATA_HOME`',
  }),
  MANGO_WORKSPACE_ROOTS: removedVariable({
    defaultText: '(refused when set)',
    meaning: 'removed: directories belong to users now; the server refuses to start while it is set',
    message:
      'MANGO_WORKSPACE_ROOTS is no longer supported: directories now belong to users. Unset it, then grant ' +
      'each user the directories they need with `mango workspace grant NAME DIR` (or ' +
      '`mango workspace grant-existing` to grant the directories existing chats use); see docs/isolation.md.',
  }),
  MANGO_ALLOWED_HOSTS: listVariable({
    separator: /,/,
    defaultText: '(unset: loopback names only)',
    meaning: 'comma-separated `name` or `name:port` the MCP endpoint answers besides loopback names',
  }),
  MANGO_ALLOWED_ORIGINS: listVariable({
    separator: /,/,
    defaultText: '(unset: loopback origins only)',
    meaning: 'comma-separated web origins (`https://chat.example.com`) allowed to call the MCP endpoint',
  }),
  MANGO_MAX_TOOL_ITERATIONS: integerVariable({
    fallback: 25,
    minimum: 1,
    maximum: 1000,
    defaultText: '`25`',
    meaning: 'model calls per chat turn (1–1000); tools are withheld on the last one',
  }),
  MANGO_TURN_LEASE_MS: integerVariable({
    fallback: 30_000,
    minimum: 300,
    maximum: 600_000,
    unit: 'milliseconds',
    defaultText: '`30000`',
    meaning: "how long a turn's lease lasts unrenewed: how long a chat stays busy after its instance died",
  }),
  MANGO_WAKE_UP_POLL_MS: integerVariable({
    fallback: 5_000,
    minimum: 50,
    maximum: 600_000,
    unit: 'milliseconds',
    defaultText: '`5000`',
    meaning:
      'on PostgreSQL, while approvals, cancels and new turn events reach other instances by LISTEN/NOTIFY, how often a waiting turn or follower still reads the database anyway ([operating.md](operating.md#wake-ups-between-instances))',
  }),
  MANGO_USER_MAX_TURNS: integerVariable({
    fallback: 4,
    minimum: 1,
    maximum: 1000,
    defaultText: '`4`',
    meaning:
      'turns one user may run at once, across chats and every instance sharing the database; one more is refused with 429 `too_many_turns`',
  }),
  MANGO_USER_MAX_TOOL_CALLS: integerVariable({
    fallback: 8,
    minimum: 1,
    maximum: 1000,
    defaultText: '`8`',
    meaning:
      "tool calls one user may run at once in one instance (chats, MCP sessions, a CLI command's own); more wait in order, their budget not yet running",
  }),
  MANGO_SHELL_SANDBOX: choiceVariable({
    fallback: 'bubblewrap',
    choices: ['bubblewrap', 'off'],
    defaultText: '`bubblewrap`',
    meaning:
      'how shell commands are confined ([shell-sandbox.md](shell-sandbox.md)); `off` runs them unsandboxed',
  }),
  MANGO_SHELL_PASS_ENV: listVariable({
    separator: /[\s,]+/,
    entry: /^[A-Za-z_][A-Za-z0-9_]*$/,
    entryExpected: 'variable names (letters, digits, _) separated by commas',
    defaultText: '(unset)',
    meaning: 'further variable names shell commands receive beyond the allowlist',
  }),
  MANGO_SANDBOX_POOL: integerVariable({
    fallback: 4,
    minimum: 0,
    maximum: 64,
    expected: 'a count from 0 to 64',
    defaultText: '`4`',
    meaning:
      'shell sandboxes built ahead of the next call of the same plan (each used once, killed after 30 s idle); `0` builds every sandbox at the call',
  }),
  MANGO_SANDBOX_USER_MEMORY: integerVariable({
    fallback: 2 * 1024 ** 3,
    minimum: 64 * 1024 ** 2,
    maximum: Number.MAX_SAFE_INTEGER,
    expected: 'a number of bytes, at least 67108864 (64 MiB), such as 2147483648 for 2 GiB',
    defaultText: '`2147483648` (2 GiB)',
    meaning:
      "memory one user's commands and stdio MCP servers hold together, tmpfs files included (as root, cgroup v1); a command over it is killed",
  }),
  MANGO_SANDBOX_UID_BASE: integerVariable({
    fallback: 1_900_000_000,
    minimum: 1000,
    maximum: 2_147_000_000,
    expected: 'an id from 1000 to 2147000000',
    defaultText: '`1900000000`',
    meaning:
      'first id of the range sandboxed commands run in when the server runs as root: the base itself is the sandbox group, each user gets their own uid and gid above it',
  }),
  MANGO_SANDBOX_UID_COUNT: integerVariable({
    fallback: 65_536,
    minimum: 2,
    maximum: 16_777_216,
    expected: 'a count from 2 to 16777216',
    defaultText: '`65536`',
    meaning:
      "how many ids the range holds (the group, then one per user and one per shared grant, never reused); a full range refuses new users' shells",
  }),
  MANGO_SANDBOX_UID: integerVariable({
    fallback: 61000,
    minimum: 1,
    maximum: 4_294_967_294,
    expected: 'a uid from 1 to 4294967294',
    defaultText: '`61000`',
    meaning:
      "the one uid every user's commands ran as before per-user uids: what `mango workspace migrate-owners` gives to each user",
  }),
  MANGO_MCP_SERVERS: textVariable({
    defaultText: '(unset: no external MCP servers)',
    meaning:
      'path of the JSON file of external MCP servers offered to every user ([mcp-client.md](mcp-client.md)); re-read on SIGHUP',
  }),
  MANGO_MCP_ALLOW_PRIVATE: choiceVariable({
    fallback: '0',
    choices: ['0', '1'],
    defaultText: '`0`',
    meaning: '`1` lets external MCP servers over HTTP reach loopback, link-local and private addresses',
  }),
  MANGO_SECRET_KEY: secretKeyVariable({
    defaultText: '(unset: users cannot add MCP servers with headers)',
    meaning:
      "the key users' MCP server headers are stored encrypted with ([mcp-client.md](mcp-client.md)); every instance of a database must have the same one, or refuses to start ([operating.md](operating.md#one-secret-key))",
  }),
  MANGO_SECRET_KEY_PREVIOUS: secretKeyVariable({
    defaultText: '(unset)',
    meaning:
      'while `MANGO_SECRET_KEY` is rotated, the old key: it still opens what it sealed, and a starting instance re-seals that under the new key ([operating.md](operating.md#one-secret-key))',
  }),
  MANGO_MCP_MAX_TOOLS: integerVariable({
    fallback: 200,
    minimum: 1,
    maximum: 100_000,
    defaultText: '`200`',
    meaning:
      'most tools one external MCP server may list; a longer listing is refused whole (all bounds: [mcp-client.md](mcp-client.md#bounds))',
  }),
  MANGO_MCP_MAX_DESCRIPTION_BYTES: integerVariable({
    fallback: 8 * 1024,
    minimum: 1,
    maximum: MAX_MCP_BYTES,
    unit: 'bytes',
    defaultText: '`8192` (8 KiB)',
    meaning: "largest description of one external MCP tool; one larger refuses its server's listing whole",
  }),
  MANGO_MCP_MAX_SCHEMA_BYTES: integerVariable({
    fallback: 64 * 1024,
    minimum: 1,
    maximum: MAX_MCP_BYTES,
    unit: 'bytes',
    defaultText: '`65536` (64 KiB)',
    meaning:
      "largest input or output schema of one external MCP tool (as JSON); one larger refuses its server's listing whole",
  }),
  MANGO_MCP_MAX_LISTING_BYTES: integerVariable({
    fallback: 1024 * 1024,
    minimum: 1,
    maximum: MAX_MCP_BYTES,
    unit: 'bytes',
    defaultText: '`1048576` (1 MiB)',
    meaning:
      'largest tool listing of one external MCP server, all pages (as JSON); a larger one is refused whole',
  }),
  MANGO_MCP_MAX_RESULT_BYTES: integerVariable({
    fallback: 8 * 1024 * 1024,
    minimum: 1024,
    maximum: MAX_MCP_BYTES,
    unit: 'bytes',
    defaultText: '`8388608` (8 MiB)',
    meaning:
      'bytes of one message (a call result, a listing page) read from an external MCP server; the rest is cut as it arrives',
  }),
  MANGO_MCP_MAX_CACHED_BYTES_PER_USER: integerVariable({
    fallback: 4 * 1024 * 1024,
    minimum: 1,
    maximum: MAX_MCP_BYTES,
    unit: 'bytes',
    defaultText: '`4194304` (4 MiB)',
    meaning:
      'tool listings kept per user across all their external MCP servers; past it the least recently listed are listed again when needed',
  }),
  MANGO_PROVIDER_FIRST_EVENT_TIMEOUT_SECONDS: integerVariable({
    fallback: 120,
    minimum: 1,
    maximum: MAX_PROVIDER_SECONDS,
    unit: 'seconds',
    defaultText: '`120`',
    meaning: 'longest wait from a provider request sent to the first byte of its response',
  }),
  MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS: integerVariable({
    fallback: 300,
    minimum: 1,
    maximum: MAX_PROVIDER_SECONDS,
    unit: 'seconds',
    defaultText: '`300`',
    meaning: 'longest silence between two chunks of a provider stream',
  }),
  MANGO_PROVIDER_MAX_RETRIES: integerVariable({
    fallback: 2,
    minimum: 0,
    maximum: 10,
    defaultText: '`2`',
    meaning: 'retries of a transient provider failure before its stream opened',
  }),
  MANGO_PROVIDER_RETRY_MAX_WAIT_SECONDS: integerVariable({
    fallback: 60,
    minimum: 0,
    maximum: MAX_PROVIDER_SECONDS,
    unit: 'seconds',
    defaultText: '`60`',
    meaning: 'longest `Retry-After` a provider request waits for',
  }),
  OPENAI_API_KEY: textVariable({
    defaultText: '(unset)',
    meaning: 'enables the `openai` chat provider and OpenAI Images for `generate_image`',
  }),
  OPENAI_BASE_URL: textVariable({
    defaultText: "the SDK's",
    meaning: 'another OpenAI endpoint for both; for images a base URL alone is enough (a local image server)',
  }),
  OPENAI_COMPATIBLE_BASE_URL: textVariable({
    defaultText: '(unset)',
    meaning:
      'enables the `openai-compatible` chat provider (Ollama, llama.cpp, vLLM, LM Studio, hosted Chat Completions APIs)',
  }),
  OPENAI_COMPATIBLE_API_KEY: textVariable({
    defaultText: '(unset)',
    meaning: 'its key, when the server needs one',
  }),
  GEMINI_API_KEY: textVariable({
    defaultText: '(unset)',
    meaning: 'enables the `gemini` chat provider and Gemini image models for `generate_image`',
  }),
  GEMINI_BASE_URL: textVariable({
    defaultText: "the SDK's",
    meaning: 'another Gemini endpoint for both',
  }),
  GOOGLE_GENAI_USE_VERTEXAI: textVariable({
    defaultText: '`false`',
    meaning: '`true` points `gemini-generate-content` at Vertex AI instead of the Gemini API',
  }),
  GOOGLE_CLOUD_PROJECT: textVariable({
    defaultText: '(unset)',
    meaning: 'the Vertex AI project (required when Vertex AI is on)',
  }),
  GOOGLE_CLOUD_LOCATION: textVariable({
    defaultText: '`global`',
    meaning: 'the Vertex AI region',
  }),
  GOOGLE_APPLICATION_CREDENTIALS: textVariable({
    defaultText: '(unset: Application Default Credentials)',
    meaning: 'key file of the Vertex AI service account',
  }),
  GOOGLE_VERTEX_BASE_URL: textVariable({
    defaultText: "the region's endpoint",
    meaning: 'another Vertex AI endpoint',
  }),
  ANTHROPIC_API_KEY: textVariable({
    defaultText: '(unset)',
    meaning: 'enables the `anthropic` chat provider',
  }),
  ANTHROPIC_BASE_URL: textVariable({
    defaultText: "the SDK's",
    meaning: 'another Anthropic endpoint',
  }),
} satisfies Record<string, VariableDeclaration<unknown>>;

export type VariableName = keyof typeof ENVIRONMENT_VARIABLES;

export type VariableValue<N extends VariableName> =
  (typeof ENVIRONMENT_VARIABLES)[N] extends VariableDeclaration<infer T> ? T : never;

/** The variables that hold optional free text (keys, URLs, names): unset or blank reads as undefined. */
export type OptionalTextVariableName = {
  [N in VariableName]: VariableValue<N> extends string | undefined
    ? string | undefined extends VariableValue<N>
      ? N
      : never
    : never;
}[VariableName];

/** Every declared variable, parsed. */
export type EnvironmentConfig = { readonly [N in VariableName]: VariableValue<N> };

export type Environment = Readonly<Record<string, string | undefined>>;

/** The default of a declared variable (its value when unset or blank). */
export function defaultOf<N extends VariableName>(name: N): VariableValue<N> {
  return ENVIRONMENT_VARIABLES[name].fallback as VariableValue<N>;
}

/** One variable, parsed. @throws ConfigError naming it when its value is malformed. */
export function readVariable<N extends VariableName>(environment: Environment, name: N): VariableValue<N> {
  const declaration: VariableDeclaration<unknown> = ENVIRONMENT_VARIABLES[name];
  const raw = environment[name];
  if (raw !== undefined && declaration.refusedWhenSet)
    return declaration.parse(name, raw) as VariableValue<N>;
  const text = raw?.trim();
  if (text === undefined || text === '') return declaration.fallback as VariableValue<N>;
  return declaration.parse(name, text) as VariableValue<N>;
}

/** Every variable, parsed once. @throws ConfigError naming the first malformed one. */
export function readEnvironment(environment: Environment): EnvironmentConfig {
  const config: Record<string, unknown> = {};
  for (const name of Object.keys(ENVIRONMENT_VARIABLES) as VariableName[]) {
    config[name] = readVariable(environment, name);
  }
  return config as EnvironmentConfig;
}
