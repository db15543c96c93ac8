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
 * A later feature (chats…) adds its repository or service here, built from `database`, and a route
 * module to `ROUTE_MODULES` in `app.ts`.
 *
 * One `ToolSettingsEvents` per app (`events`) is shared by the settings service (which emits on every
 * change) and the MCP sessions (which subscribe), so a PUT reaches a running MCP session.
 */

import { type ChatConfig, readChatConfig } from '../chat/chat-config.ts';
import type { ChatRepository } from '../chat/chat-repository.ts';
import type { ChatService } from '../chat/chat-service.ts';
import { readVariable } from '../config/environment-variables.ts';
import { processEnvironment } from '../config/process-environment.ts';
import type { ServerConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { DatabaseChatRepository } from '../db/database-chat-repository.ts';
import { createDatabaseLedgerFactory } from '../db/database-freshness-ledger.ts';
import { DatabaseImageRepository } from '../db/database-image-repository.ts';
import { DatabaseToolSettingsRepository } from '../db/database-tool-settings-repository.ts';
import { DatabaseUserMcpServerRepository } from '../db/database-user-mcp-server-repository.ts';
import { DatabaseUserPreferenceRepository } from '../db/database-user-preference-repository.ts';
import { DatabaseUserRepository } from '../db/database-user-repository.ts';
import { DatabaseWorkspaceRepository } from '../db/database-workspace-repository.ts';
import type { ImageRepository } from '../images/image-repository.ts';
import { McpHttpSessions } from '../mcp/mcp-http-handler.ts';
import { createExternalTools, type ExternalTools } from '../mcp-client/create-external-tool-source.ts';
import { createModelCatalog, type ModelCatalog } from '../providers/model-catalog.ts';
import { createProviderRegistry, type ProviderRegistry } from '../providers/provider-registry.ts';
import { sandboxWorkspaceOwners } from '../sandbox/sandbox-workspace-owners.ts';
import { ToolSettingsEvents } from '../settings/tool-settings-events.ts';
import type { ToolSettingsRepository } from '../settings/tool-settings-repository.ts';
import { ToolSettingsService } from '../settings/tool-settings-service.ts';
import type { ToolTimers } from '../tools/execution.ts';
import type { ChatFreshnessLedger } from '../tools/freshness-ledger.ts';
import { defaultToolRegistry, type ToolRegistry } from '../tools/registry.ts';
import { UserCallSlots } from '../tools/user-call-slots.ts';
import type { WakeUpSource } from '../turns/wake-up-source.ts';
import type { UserPreferenceRepository } from '../users/user-preferences.ts';
import type { WebApp } from '../web/load-web-app.ts';
import { createWorkspaceService } from '../workspaces/create-workspace-service.ts';
import type { WorkspaceService } from '../workspaces/workspace-service.ts';
import { type AllowedHosts, readAllowedHosts } from './allowed-hosts.ts';
import { type AuthenticationPlugin, createAuthenticationPlugin } from './authentication.ts';
import { createServerChatService } from './chat/chat-service-factory.ts';
import { DatabaseOutage } from './database-outage.ts';

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
  /** Records of generated images (`images`), what `GET /api/images/:id` serves from. */
  images: ImageRepository;
  /** The live MCP Streamable HTTP sessions of this app (closed by `closeAll` on shutdown). */
  mcpSessions: McpHttpSessions;
  /** The freshness ledger of a chat, in the database (`file_observations`). */
  ledgerForChat: (chatId: string | undefined) => ChatFreshnessLedger;
  /** `.use()` it in a route module to require a bearer token and receive `user`. */
  authentication: AuthenticationPlugin;
  /** Where server faults are logged (default: console.error). */
  log: (message: string) => void;
  /** Model providers configured from the environment (`GET /api/providers`). */
  providers: ProviderRegistry;
  /** The models each provider lists, cached per provider (`GET /api/providers/:id/models`). */
  modelCatalog: ModelCatalog;
  /** What the server remembers of a user's choices (`/api/preferences/…`). */
  preferences: UserPreferenceRepository;
  /** Chats and turns (`/api/chats…`). */
  chats: ChatService;
  /** `MANGO_MAX_TOOL_ITERATIONS`. */
  chatConfig: ChatConfig;
  /** Users' workspaces: what a chat or an MCP session may bind and reach (`/api/workspaces`). */
  workspaces: WorkspaceService;
  /** `Host`/`Origin` values `/mcp` answers (`MANGO_ALLOWED_HOSTS`, `MANGO_ALLOWED_ORIGINS`). */
  allowedHosts: AllowedHosts;
  /** Whether the database is reachable: 503s during an outage, one log line each way, `/api/health`. */
  databaseOutage: DatabaseOutage;
  /** The web app's bytes, loaded and verified once at start; undefined = not built (pages answer 503). */
  webApp?: WebApp;
  /** External MCP servers' tools (`MANGO_MCP_SERVERS`); undefined when none are configured. */
  externalTools?: ExternalTools;
  /**
   * This instance's per-user slots for running tool calls (`MANGO_USER_MAX_TOOL_CALLS`), one set shared
   * by its chat turns and MCP sessions.
   */
  toolCallSlots: UserCallSlots;
}

export interface AppDependencyOptions {
  config: ServerConfig;
  database: Database;
  now?: () => number;
  registry?: ToolRegistry;
  events?: ToolSettingsEvents;
  log?: (message: string) => void;
  /** Provider keys and chat settings are read from here (default: the process environment, `processEnvironment()`). */
  environment?: Readonly<Record<string, string | undefined>>;
  providers?: ProviderRegistry;
  /** How long a provider's model list is reused (default `DEFAULT_MODEL_CATALOG_TTL_MS`). */
  modelCatalogTtlMs?: number;
  /** Default: the database (`DatabaseChatRepository`). */
  chatRepository?: ChatRepository;
  /** Default: built from `config` over the database (`createWorkspaceService`). */
  workspaces?: WorkspaceService;
  /** The web app to serve (`startServer` loads it with `loadWebApp`); default none. */
  webApp?: WebApp;
  /** The approval timeout's timer of chat turns (tests fire it without waiting). */
  approvalTimers?: ToolTimers;
  /** Default: built from `environment` (`MANGO_MCP_SERVERS`); `null`: none, whatever it says. */
  externalTools?: ExternalTools | null;
  /** How answers, cancels and turn events reach other instances (`startServer`'s listener on PostgreSQL). */
  wakeUps?: WakeUpSource;
}

/** The external MCP servers' tools: the ones given, none when switched off, else those `environment` configures. */
function externalToolsFor(
  options: AppDependencyOptions,
  built: {
    environment: Readonly<Record<string, string | undefined>>;
    registry: ToolRegistry;
    workspaces: WorkspaceService;
    now: () => number;
    log: (message: string) => void;
  },
): ExternalTools | undefined {
  if (options.externalTools === null) return undefined;
  return (
    options.externalTools ??
    createExternalTools({
      environment: built.environment,
      builtins: built.registry,
      dataDirectory: options.config.dataDirectory,
      workspaces: built.workspaces,
      userServerRepository: new DatabaseUserMcpServerRepository(options.database),
      now: built.now,
      log: built.log,
    })
  );
}

/**
 * Builds the repositories and services over one database.
 * @throws WorkspacesDirectoryError when the configured workspaces directory cannot be used.
 */
export function createAppDependencies(options: AppDependencyOptions): AppDependencies {
  const now = options.now ?? Date.now;
  const registry = options.registry ?? defaultToolRegistry;
  const events = options.events ?? new ToolSettingsEvents();
  const users = new DatabaseUserRepository(options.database, now);
  const toolSettingsRepository = new DatabaseToolSettingsRepository(options.database, now);
  const environment = options.environment ?? processEnvironment();
  const providers = options.providers ?? createProviderRegistry(environment);
  const ledgerForChat = createDatabaseLedgerFactory(options.database, now);
  const chatConfig = readChatConfig(environment);
  const toolCallSlots = new UserCallSlots(readVariable(environment, 'MANGO_USER_MAX_TOOL_CALLS'));
  const workspaces =
    options.workspaces ??
    createWorkspaceService(
      options.config,
      new DatabaseWorkspaceRepository(options.database),
      now,
      sandboxWorkspaceOwners(),
    );
  const log = options.log ?? ((message: string) => console.error(message));
  const externalTools = externalToolsFor(options, { environment, registry, workspaces, now, log });
  const toolSource = externalTools?.source;
  const toolSettings = new ToolSettingsService({
    repository: toolSettingsRepository,
    registry,
    toolSource,
    events,
  });
  return {
    config: options.config,
    database: options.database,
    now,
    registry,
    events,
    users,
    toolSettingsRepository,
    toolSettings,
    images: new DatabaseImageRepository(options.database),
    mcpSessions: new McpHttpSessions({ now }),
    ledgerForChat,
    authentication: createAuthenticationPlugin(users),
    log,
    databaseOutage: new DatabaseOutage({ database: options.database, log, now }),
    providers,
    modelCatalog: createModelCatalog({ providers, now, ttlMs: options.modelCatalogTtlMs }),
    preferences: new DatabaseUserPreferenceRepository(options.database),
    chatConfig,
    workspaces,
    allowedHosts: readAllowedHosts(environment, options.config.host),
    webApp: options.webApp,
    externalTools,
    toolCallSlots,
    chats: createServerChatService({
      toolCallSlots,
      toolSource,
      chatConfig,
      workspaces,
      providers,
      registry,
      toolSettingsRepository,
      toolSettings,
      approvalTimers: options.approvalTimers,
      ledgerForChat,
      dataDirectory: options.config.dataDirectory,
      now,
      repository: options.chatRepository ?? new DatabaseChatRepository(options.database),
      wakeUps: options.wakeUps,
    }),
  };
}
