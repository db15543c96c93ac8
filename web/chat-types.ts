/**
 * The chats as the API sends them (a chat with its messages and turns too), what the chat list's calls
 * send and receive (search results, the update body, an export's file), and the name an export is
 * saved under: the server's exact `filename*`, read from its header.
 */

export interface ChatSummary {
  id: string;
  title: string;
  provider: string;
  model: string;
  /** The chat's own instructions, sent after the server's; null when it has none. */
  systemPrompt?: string | null;
  workingDirectory?: string | null;
  /** True: tools reach only `workingDirectory`; false: all of the owner's workspaces. */
  confined?: boolean;
  createdAt?: string;
  /** ISO 8601: its creation or its newest message. */
  lastActivityAt?: string;
  pinnedAt?: string | null;
  archivedAt?: string | null;
}

/** A stored message; `content` is whatever the server persisted (text, tool calls, tool results). */
export interface ChatMessage {
  id?: string;
  seq?: number;
  role: string;
  /** The provider-neutral history item (`ConversationItem`) the server stored. */
  item?: unknown;
  content?: unknown;
  createdAt?: string;
}

/** Tokens a turn's model calls used (the server sums every call of the turn). */
export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
}

/** One turn of a chat as `GET /api/chats/:id` reports it, oldest first. */
export interface TurnSummary {
  id: string;
  state: string;
  /** The chat's last message seq when the turn began: later messages (to the next turn's) are its own. */
  messageSeqAtStart: number;
  usage: TurnUsage | null;
  durations: { totalMs: number; toolMs: number } | null;
  /** The turn trace once it ended; null for turns from before traces were kept. */
  progress: { events: { at: number; event: Record<string, unknown> }[] } | null;
  error: { message: string } | null;
}

export interface ChatWithMessages extends ChatSummary {
  messages: ChatMessage[];
  turns: TurnSummary[];
}

/** A piece of a search excerpt: plain text, `match` marking a word that matched. */
export interface SnippetPart {
  text: string;
  match: boolean;
}

export interface ChatSearchResult {
  chat: ChatSummary;
  matches: number;
  title: SnippetPart[];
  message: { id: string; seq: number; role: 'user' | 'assistant'; snippet: SnippetPart[] } | null;
}

export interface ChatSearchResults {
  results: ChatSearchResult[];
  nextOffset: number | null;
}

/** What `PATCH /api/chats/:id` changes. */
export interface ChatUpdateBody {
  title?: string;
  pinned?: boolean;
  archived?: boolean;
  model?: string;
  /** Blank or null removes the chat's own prompt. */
  systemPrompt?: string | null;
}

/** A downloaded export: the file and the name the server gave it. */
export interface ChatExportFile {
  blob: Blob;
  filename: string;
}

/** The exact name of `Content-Disposition`'s `filename*` (RFC 8187), else a plain default. */
export function exportFilename(response: Response, format: 'markdown' | 'json'): string {
  const header = response.headers.get('content-disposition') ?? '';
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(header)?.[1];
  if (encoded) {
    try {
      return decodeURIComponent(encoded);
    } catch {
      // A malformed header falls back to the plain name below.
    }
  }
  return format === 'json' ? 'chat.json' : 'chat.md';
}
