/**
 * The browser's only way to talk to the server: same-origin `fetch` with the bearer token. Non-2xx
 * answers become an {@link ApiError} carrying the server's `{error, code}` body, so views can show
 * the server's own message (a 422 next to the field it names).
 */
import type {
  ToolSettingsDescriptor,
  ToolSettingsUpdate,
} from '../src/contracts/tool-settings-descriptor.ts';
import type { UserMcpServerView } from '../src/contracts/user-mcp-server-view.ts';
import type {
  ChatExportFile,
  ChatMessage,
  ChatSearchResults,
  ChatSummary,
  ChatUpdateBody,
  ChatWithMessages,
  TurnSummary,
} from './chat-types.ts';
import { exportFilename } from './chat-types.ts';
import { type FileStart, readAtMost } from './file-preview-content.ts';
import type { DirectoryListing, WorkspaceFileListing, WorkspaceList } from './workspace-types.ts';

// The server's own types (type-only imports: nothing of the server is bundled).
export type { ToolResultView } from '../src/contracts/tool-result-view.ts';
export type {
  ChatExportFile,
  ChatMessage,
  ChatSearchResult,
  ChatSearchResults,
  ChatSummary,
  ChatUpdateBody,
  ChatWithMessages,
  SnippetPart,
  TurnSummary,
  TurnUsage,
} from './chat-types.ts';
export type {
  DirectoryListing,
  WorkspaceFileEntry,
  WorkspaceFileListing,
  WorkspaceList,
  WorkspaceSummary,
} from './workspace-types.ts';
export type { ToolSettingsDescriptor, UserMcpServerView };
/** The body of `PUT /api/settings/tools/:toolName`. */
export type UpdateToolSettingsBody = ToolSettingsUpdate;
/**
 * The body of `POST /api/chats`. `workingDirectory` lies inside one of the caller's workspaces (omitted:
 * the personal workspace); `unrestricted` lets the chat reach all of them, only when the server allows it.
 */
export interface CreateChatBody {
  provider: string;
  model: string;
  title?: string;
  workingDirectory?: string;
  unrestricted?: boolean;
  systemPrompt?: string;
}

export interface ProviderSummary {
  id: string;
  available: boolean;
  reason?: string;
  models?: string[];
  defaultModel?: string;
}

/** `GET /api/providers/:id/models`: the ids a provider lists (cached by the server). */
export interface ProviderModels {
  provider: string;
  models: string[];
  fetchedAt: string;
}

/** The caller's last provider and model (`/api/preferences/chat-model`); null when none was saved. */
export interface ChatModelPreference {
  provider: string;
  model: string;
  updatedAt: string;
}

/** A failed API call: HTTP status plus the server's message and stable code when it sent them. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  /** The settings parameter the error is about, when the server names one. */
  readonly parameter: string | undefined;

  constructor(status: number, message: string, code?: string, parameter?: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.parameter = parameter;
  }
}

/**
 * The setting a settings error is about: the body's `parameter`, its key. The message names the setting
 * by its label, for people, so the key is never read out of the text.
 */
export function parameterNamedInError(explicit: unknown): string | undefined {
  return typeof explicit === 'string' && explicit.length > 0 ? explicit : undefined;
}

export interface ApiClient {
  listTools(): Promise<ToolSettingsDescriptor[]>;
  /** The caller's external MCP servers with their state (`GET /api/mcp-servers`). */
  listMcpServers(): Promise<UserMcpServerView[]>;
  addMcpServer(body: {
    name: string;
    url: string;
    headers?: Record<string, string>;
  }): Promise<UserMcpServerView>;
  deleteMcpServer(name: string): Promise<void>;
  updateTool(name: string, body: UpdateToolSettingsBody): Promise<ToolSettingsDescriptor>;
  listProviders(): Promise<ProviderSummary[]>;
  listProviderModels(providerId: string): Promise<ProviderModels>;
  getChatModelPreference(): Promise<ChatModelPreference | null>;
  saveChatModelPreference(provider: string, model: string): Promise<ChatModelPreference | null>;
  listWorkspaces(): Promise<WorkspaceList>;
  listDirectories(path: string): Promise<DirectoryListing>;
  listWorkspaceFiles(workspaceId: string, path: string): Promise<WorkspaceFileListing>;
  /** A file's bytes, fetched with the token (a link with the token in its URL would leak it). */
  downloadWorkspaceFile(workspaceId: string, path: string): Promise<Blob>;
  /** A file's first bytes, at most `limit(contentType)` of them (the rest is never read). */
  readWorkspaceFileStart(
    workspaceId: string,
    path: string,
    limit: (contentType: string) => number,
  ): Promise<FileStart>;
  uploadWorkspaceFile(workspaceId: string, directory: string, file: File, overwrite: boolean): Promise<void>;
  listChats(archived?: boolean): Promise<ChatSummary[]>;
  searchChats(query: string, offset?: number): Promise<ChatSearchResults>;
  /**
   * `PATCH /api/chats/:id`: rename, pin, archive, or set the model of the chat's next turns (among its
   * provider's); the chat as it is now (422 names what is wrong).
   */
  updateChat(id: string, body: ChatUpdateBody): Promise<ChatSummary>;
  exportChat(id: string, format: 'markdown' | 'json'): Promise<ChatExportFile>;
  getChat(id: string): Promise<ChatWithMessages>;
  createChat(body: CreateChatBody): Promise<ChatSummary>;
  deleteChat(id: string): Promise<void>;
  /**
   * Starts a turn, with the files attached to the message (paths as the chat's tools take them);
   * resolves with the open `text/event-stream` response.
   */
  startTurn(
    chatId: string,
    message: string,
    signal?: AbortSignal,
    attachments?: readonly string[],
  ): Promise<Response>;
  cancelTurn(chatId: string): Promise<void>;
  /** Answers the chat's last message again (`regenerate`) or after its turn failed (`retry`); the stream as startTurn's. */
  rerunTurn(chatId: string, kind: 'regenerate' | 'retry', signal?: AbortSignal): Promise<Response>;
  /** Replaces a user message and runs the chat again from there; the stream as startTurn's. */
  editMessage(chatId: string, messageId: string, message: string, signal?: AbortSignal): Promise<Response>;
  /** The chat's newest turn (`state`, `messageSeqAtStart`), or undefined when it never ran one. */
  currentTurn(chatId: string): Promise<CurrentTurn | undefined>;
  /** Re-attaches to the chat's newest turn: its events after `afterSeq`, then live. */
  followTurn(chatId: string, afterSeq: number, signal?: AbortSignal): Promise<Response>;
  /** Answers a call waiting for approval (404: not waiting for this user; 409: already decided). */
  answerApproval(chatId: string, callId: string, body: ApprovalAnswerBody): Promise<ApprovalAnswer>;
}

export interface CurrentTurn {
  id: string;
  state: string;
  /** Messages with a higher `seq` were written by this turn. */
  messageSeqAtStart: number;
  /** The turn's calls waiting for the user's answer (absent from servers without approvals). */
  pendingApprovals?: PendingApproval[];
}

/** One entry of a running turn record's `pendingApprovals`: a call waiting for the user's answer. */
export interface PendingApproval {
  callId: string;
  name: string;
  /** The parsed, validated arguments the call will run with. */
  arguments: unknown;
  /** Which setting asked, human-readable. */
  reason: string;
  requestedAt?: string;
  /** ISO 8601: when the unanswered call is denied. */
  expiresAt?: string;
}

/** The body of `POST /api/chats/:chatId/approvals/:callId`. */
export interface ApprovalAnswerBody {
  decision: 'approve' | 'deny';
  /** A denial's reason, passed to the model (at most 2,000 characters). */
  reason?: string;
  /** Approve, and from now on approve this exact command (shell tools). */
  remember?: boolean;
  /** Approve, and from now on approve commands starting with these words (shell tools). */
  rememberPrefix?: string;
}

/** The answer's 200 body: what was decided and the rule saved, if any. */
export interface ApprovalAnswer {
  callId: string;
  decision: 'approve' | 'deny';
  reason?: string;
  remembered?: { setting: string; rule: string };
}

/**
 * Creates a client bound to one token. `onUnauthorized` runs on any 401 (the token was revoked or
 * mistyped) so the app can return to the sign-in form.
 */
export function createApiClient(token: string, onUnauthorized: () => void): ApiClient {
  async function send(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    const raw = body instanceof Blob;
    if (body !== undefined) headers['content-type'] = raw ? 'application/octet-stream' : 'application/json';
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
      signal,
    });
    if (response.ok) return response;
    if (response.status === 401) onUnauthorized();
    throw await toApiError(response);
  }

  async function json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await send(method, path, body);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  return {
    listTools: async () =>
      (await json<{ tools: ToolSettingsDescriptor[] }>('GET', '/api/settings/tools')).tools,
    listMcpServers: async () =>
      (await json<{ servers: UserMcpServerView[] }>('GET', '/api/mcp-servers')).servers,
    addMcpServer: (body) => json<UserMcpServerView>('POST', '/api/mcp-servers', body),
    deleteMcpServer: (name) => json<void>('DELETE', `/api/mcp-servers/${encodeURIComponent(name)}`),
    updateTool: (name, body) =>
      json<ToolSettingsDescriptor>('PUT', `/api/settings/tools/${encodeURIComponent(name)}`, body),
    listProviders: async () =>
      (await json<{ providers: ProviderSummary[] }>('GET', '/api/providers')).providers,
    listProviderModels: (providerId) =>
      json<ProviderModels>('GET', `/api/providers/${encodeURIComponent(providerId)}/models`),
    getChatModelPreference: async () =>
      (await json<{ chatModel: ChatModelPreference | null }>('GET', '/api/preferences/chat-model')).chatModel,
    saveChatModelPreference: async (provider, model) =>
      (
        await json<{ chatModel: ChatModelPreference | null }>('PUT', '/api/preferences/chat-model', {
          provider,
          model,
        })
      ).chatModel,
    listWorkspaces: () => json<WorkspaceList>('GET', '/api/workspaces'),
    listDirectories: (path) =>
      json<DirectoryListing>('GET', `/api/workspaces/directories?path=${encodeURIComponent(path)}`),
    listWorkspaceFiles: (id, path) =>
      json<WorkspaceFileListing>('GET', `${filesPath(id)}?path=${encodeURIComponent(path)}`),
    downloadWorkspaceFile: async (id, path) =>
      (await send('GET', `${filesPath(id)}/content?path=${encodeURIComponent(path)}`)).blob(),
    readWorkspaceFileStart: async (id, path, limit) => {
      const response = await send('GET', `${filesPath(id)}/content?path=${encodeURIComponent(path)}`);
      const contentType = response.headers.get('content-type') ?? 'application/octet-stream';
      return { contentType, ...(await readAtMost(response, limit(contentType))) };
    },
    uploadWorkspaceFile: async (id, directory, file, overwrite) => {
      const query = `path=${encodeURIComponent(directory)}&name=${encodeURIComponent(file.name)}`;
      await send('POST', `${filesPath(id)}?${query}${overwrite ? '&overwrite=true' : ''}`, file);
    },
    listChats: async (archived = false) =>
      unwrapList<ChatSummary>(
        await json<unknown>('GET', `/api/chats${archived ? '?archived=true' : ''}`),
        'chats',
      ),
    searchChats: (query, offset = 0) =>
      json<ChatSearchResults>('GET', `/api/chats/search?q=${encodeURIComponent(query)}&offset=${offset}`),
    updateChat: (id, body) => json<ChatSummary>('PATCH', `/api/chats/${encodeURIComponent(id)}`, body),
    exportChat: async (id, format) => {
      const response = await send('GET', `/api/chats/${encodeURIComponent(id)}/export?format=${format}`);
      return { blob: await response.blob(), filename: exportFilename(response, format) };
    },
    getChat: async (id) => unwrapChat(await json<unknown>('GET', `/api/chats/${encodeURIComponent(id)}`)),
    createChat: async (body) => unwrapChat(await json<unknown>('POST', '/api/chats', body)),
    deleteChat: async (id) => {
      await send('DELETE', `/api/chats/${encodeURIComponent(id)}`);
    },
    startTurn: (chatId, message, signal, attachments = []) =>
      send(
        'POST',
        `/api/chats/${encodeURIComponent(chatId)}/turns`,
        attachments.length === 0
          ? { message }
          : { message, attachments: attachments.map((path) => ({ path })) },
        signal,
      ),
    rerunTurn: (chatId, kind, signal) =>
      send('POST', `/api/chats/${encodeURIComponent(chatId)}/turns/${kind}`, undefined, signal),
    editMessage: (chatId, messageId, message, signal) =>
      send(
        'POST',
        `/api/chats/${encodeURIComponent(chatId)}/messages/${encodeURIComponent(messageId)}/edit`,
        { message },
        signal,
      ),
    cancelTurn: async (chatId) => {
      await send('POST', `/api/chats/${encodeURIComponent(chatId)}/cancel`);
    },
    currentTurn: async (chatId) => {
      try {
        return await json<CurrentTurn>('GET', `/api/chats/${encodeURIComponent(chatId)}/turns/current`);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return undefined;
        throw error;
      }
    },
    followTurn: (chatId, afterSeq, signal) =>
      send(
        'GET',
        `/api/chats/${encodeURIComponent(chatId)}/turns/current/events?after=${afterSeq}`,
        undefined,
        signal,
      ),
    answerApproval: (chatId, callId, body) =>
      json<ApprovalAnswer>(
        'POST',
        `/api/chats/${encodeURIComponent(chatId)}/approvals/${encodeURIComponent(callId)}`,
        body,
      ),
  };
}

function filesPath(workspaceId: string): string {
  return `/api/workspaces/${encodeURIComponent(workspaceId)}/files`;
}

/** Accepts both a bare array and `{[key]: array}` so the client survives either list shape. */
function unwrapList<T>(body: unknown, key: string): T[] {
  if (Array.isArray(body)) return body as T[];
  if (typeof body === 'object' && body !== null && Array.isArray((body as Record<string, unknown>)[key])) {
    return (body as Record<string, T[]>)[key]!;
  }
  return [];
}

/** Accepts both a bare chat and `{chat, messages?}`. */
function unwrapChat(body: unknown): ChatWithMessages {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const chat = (typeof record.chat === 'object' && record.chat !== null ? record.chat : record) as Record<
    string,
    unknown
  >;
  const messages = Array.isArray(chat.messages)
    ? chat.messages
    : Array.isArray(record.messages)
      ? record.messages
      : [];
  const turns = Array.isArray(record.turns) ? (record.turns as TurnSummary[]) : [];
  return { ...(chat as unknown as ChatSummary), messages: messages as ChatMessage[], turns };
}

async function toApiError(response: Response): Promise<ApiError> {
  let message = `${response.status} ${response.statusText}`.trim();
  let code: string | undefined;
  let parameter: unknown;
  try {
    const body = (await response.json()) as Record<string, unknown>;
    if (typeof body.error === 'string') message = body.error;
    else if (typeof body.message === 'string') message = body.message;
    if (typeof body.code === 'string') code = body.code;
    parameter = body.parameter;
  } catch {
    // Not JSON: keep the status line.
  }
  return new ApiError(response.status, message, code, parameterNamedInError(parameter));
}
