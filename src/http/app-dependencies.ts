/**
 * What the HTTP app is built from. Everything with state or I/O is passed in, so a test builds an app
 * over a temp database and an injected clock in a few lines:
 *
 * ```ts
 * const database = await openDatabase({ databaseUrl: undefined, dataDirectory: temporary });
 * await migrate(database);
 * const app = createApp(createAppDependencies({ config, database, now: () => 0 }));
 * const response = await app.handle(new Request('http://localhost/api/settings/tools', { headers }));
 * ```
 *
 * A later feature (chats, images, MCP) adds its repository or service here, built from `database`, and
 * a route module to `ROUTE_MODULES` in `app.ts`.
 */
import type { ChatRepository } from '../chat/chat-repository.ts';
import type { ChatService } from '../chat/chat-service.ts';
import type { ServerConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { createDatabaseLedgerFactory } from '../db/database-freshness-ledger.ts';
import { DatabaseToolSettingsRepository } from '../db/database-tool-settings-repository.ts';
import { DatabaseUserRepository } from '../db/database-user-repository.ts';
import { createProviderRegistry, type ProviderRegistry } from '../providers/provider-registry.ts';
import { ToolSettingsEvents } from '../settings/tool-settings-events.ts';
import type { ToolSettingsRepository } from '../settings/tool-settings-repository.ts';
import { ToolSettingsService } from '../settings/tool-settings-service.ts';
import type { FreshnessLedger } from '../tools/freshness-ledger.ts';
import { defaultToolRegistry, type ToolRegistry } from '../tools/registry.ts';
import { type AuthenticationPlugin, createAuthenticationPlugin } from './authentication.ts';
import { createServerChatService } from './chat/chat-service-factory.ts';

export interface AppDependencies {
  config: ServerConfig;
  database: Database;
  /** Clock in epoch milliseconds. */
  now: () => number;
  registry: ToolRegistry;
  events: ToolSettingsEvents;
  users: DatabaseUserRepository;
  toolSettingsRepository: ToolSettingsRepository;
  toolSettings: ToolSettingsService;
  /** The freshness ledger of a chat, in the database (`file_observations`). */
  ledgerForChat: (chatId: string | undefined) => FreshnessLedger;
  /** `.use()` it in a route module to require a bearer token and receive `user`. */
  authentication: AuthenticationPlugin;
  /** Where server faults are logged (default: console.error). */
  log: (message: string) => void;
  /** Model providers configured from the environment (`GET /api/providers`). */
  providers: ProviderRegistry;
  /** Chats and turns (`/api/chats…`). */
  chats: ChatService;
}

export interface AppDependencyOptions {
  config: ServerConfig;
  database: Database;
  now?: () => number;
  registry?: ToolRegistry;
  events?: ToolSettingsEvents;
  log?: (message: string) => void;
  /** Provider keys and chat settings are read from here (default `process.env`). */
  environment?: Readonly<Record<string, string | undefined>>;
  providers?: ProviderRegistry;
  /** Default: in memory. */
  chatRepository?: ChatRepository;
}

/** Builds the repositories and services over one database. */
export function createAppDependencies(options: AppDependencyOptions): AppDependencies {
  const now = options.now ?? Date.now;
  const registry = options.registry ?? defaultToolRegistry;
  const events = options.events ?? new ToolSettingsEvents();
  const users = new DatabaseUserRepository(options.database, now);
  const toolSettingsRepository = new DatabaseToolSettingsRepository(options.database, now);
  const environment = options.environment ?? process.env;
  const providers = options.providers ?? createProviderRegistry(environment);
  const ledgerForChat = createDatabaseLedgerFactory(options.database, now);
  return {
    config: options.config,
    database: options.database,
    now,
    registry,
    events,
    users,
    toolSettingsRepository,
    toolSettings: new ToolSettingsService({ repository: toolSettingsRepository, registry, events }),
    ledgerForChat,
    authentication: createAuthenticationPlugin(users),
    log: options.log ?? ((message) => console.error(message)),
    providers,
    chats: createServerChatService({
      environment,
      providers,
      registry,
      toolSettingsRepository,
      ledgerForChat,
      dataDirectory: options.config.dataDirectory,
      now,
      repository: options.chatRepository,
    }),
  };
}
