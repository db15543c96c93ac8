/**
 * The chats as the API sends them, what the chat list's calls send and receive (search results, the
 * update body, an export's file), and the name an export is saved under: the server's exact
 * `filename*`, read from its header.
 */

export interface ChatSummary {
  id: string;
  title: string;
  provider: string;
  model: string;
  workingDirectory?: string | null;
  /** True: tools reach only `workingDirectory`; false: all of the owner's workspaces. */
  confined?: boolean;
  createdAt?: string;
  /** ISO 8601: its creation or its newest message. */
  lastActivityAt?: string;
  pinnedAt?: string | null;
  archivedAt?: string | null;
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
