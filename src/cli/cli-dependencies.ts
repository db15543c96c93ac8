/**
 * Where CLI commands that act for a user (`mango mcp --user NAME`) get users and saved tool settings.
 * `openCliDependencies` is the one function to swap when the database lands (issue 5): it should
 * open the SQLite/PostgreSQL repositories from `env` (`MANGO_DATA_DIR`, `DATABASE_URL`) and return
 * them with a `close` that closes the connection.
 *
 * Until then it serves in-memory repositories, seeded from the JSON file named by
 * `MANGO_CLI_STATE_FILE` when set:
 * `{"users": [{"name": "alice"}], "toolSettings": {"alice": {"bash": {"enabled": true}}}}`
 * (settings keyed by user name, then tool name). Without it there are no users.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ToolSettingsEvents } from '../settings/tool-settings-events.ts';
import {
  InMemoryToolSettingsRepository,
  type ToolSettingsRepository,
} from '../settings/tool-settings-repository.ts';
import type { SavedToolSettings } from '../tools/types.ts';
import type { User, UserRepository } from '../users/user-repository.ts';
import { UsageError } from './usage-error.ts';

export interface CliDependencies {
  users: UserRepository;
  toolSettings: ToolSettingsRepository;
  /** In-process settings change events (a command that changes settings emits here). */
  toolSettingsEvents: ToolSettingsEvents;
  /** Where tools that produce files store them (`MANGO_DATA_DIR`, default `./data`). */
  dataDirectory: string;
  close(): Promise<void>;
}

export type OpenCliDependencies = (
  env: Record<string, string | undefined>,
  cwd: string,
) => Promise<CliDependencies>;

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** Users in memory; tokens kept only as sha256 hashes, compared in constant time. */
class InMemoryUserRepository implements UserRepository {
  readonly #users = new Map<string, { user: User; tokenHash: Buffer | undefined }>();

  async create(name: string): Promise<{ user: User; token: string }> {
    if (this.#users.has(name)) throw new Error(`A user named "${name}" already exists.`);
    const token = randomBytes(32).toString('base64url');
    const user: User = { id: randomUUID(), name, createdAt: new Date().toISOString() };
    this.#users.set(name, { user, tokenHash: hashToken(token) });
    return { user: { ...user }, token };
  }

  async findByToken(token: string): Promise<User | undefined> {
    const candidate = hashToken(token);
    let found: User | undefined;
    for (const entry of this.#users.values()) {
      if (entry.tokenHash && timingSafeEqual(entry.tokenHash, candidate)) found = entry.user;
    }
    return found ? { ...found } : undefined;
  }

  async findByName(name: string): Promise<User | undefined> {
    const entry = this.#users.get(name);
    return entry ? { ...entry.user } : undefined;
  }

  async list(): Promise<User[]> {
    return [...this.#users.values()].map((entry) => ({ ...entry.user }));
  }

  async revoke(name: string): Promise<boolean> {
    const entry = this.#users.get(name);
    if (!entry) return false;
    entry.tokenHash = undefined;
    return true;
  }

  async count(): Promise<number> {
    return this.#users.size;
  }
}

interface CliStateFile {
  users?: { name: string }[];
  toolSettings?: Record<string, Record<string, SavedToolSettings>>;
}

async function readStateFile(path: string): Promise<CliStateFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read MANGO_CLI_STATE_FILE ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as CliStateFile;
  } catch (error) {
    throw new UsageError(`MANGO_CLI_STATE_FILE ${path} is not JSON: ${(error as Error).message}`);
  }
}

/** Opens the CLI's repositories (placeholder: in memory, see the module header). */
export const openCliDependencies: OpenCliDependencies = async (env, cwd) => {
  const users = new InMemoryUserRepository();
  const toolSettings = new InMemoryToolSettingsRepository();
  const stateFile = env.MANGO_CLI_STATE_FILE;
  if (stateFile) {
    const state = await readStateFile(resolve(cwd, stateFile));
    for (const { name } of state.users ?? []) await users.create(name);
    for (const [userName, rows] of Object.entries(state.toolSettings ?? {})) {
      const user = await users.findByName(userName);
      if (!user) throw new UsageError(`MANGO_CLI_STATE_FILE: settings for unknown user "${userName}".`);
      for (const [toolName, row] of Object.entries(rows)) await toolSettings.put(user.id, toolName, row);
    }
  }
  return {
    users,
    toolSettings,
    toolSettingsEvents: new ToolSettingsEvents(),
    dataDirectory: resolve(cwd, env.MANGO_DATA_DIR ?? 'data'),
    close: async () => {},
  };
};
