/**
 * The query values of the chat list and the chat export, read strictly (a typo is a 422 naming the
 * value, never a silent default), and the export's download: `attachment`, named after the chat's title.
 */
import { chatExportMarkdown } from '../../chat/chat-markdown.ts';
import type { ChatExport } from '../../chat/chat-organizer.ts';
import type { ChatListFilter } from '../../chat/chat-repository.ts';
import { invalid } from '../../chat/storable-text.ts';
import { attachmentDisposition } from '../workspace-files/download-filename.ts';

/** `?archived=`: absent or false lists the chats not archived, true the archived ones. */
export function parseArchivedFilter(raw: string | undefined): ChatListFilter {
  if (raw === undefined || raw === 'false') return 'active';
  if (raw === 'true') return 'archived';
  throw invalid(`archived must be true or false; got "${raw}".`);
}

export function exportChatResponse(exported: ChatExport, format: string | undefined): Response {
  if (format !== undefined && format !== 'markdown' && format !== 'json') {
    throw invalid(`format must be markdown or json; got "${format}".`);
  }
  const json = format === 'json';
  const body = json ? `${JSON.stringify(exported, null, 2)}\n` : chatExportMarkdown(exported);
  return new Response(body, {
    headers: {
      'content-type': json ? 'application/json; charset=utf-8' : 'text/markdown; charset=utf-8',
      'content-disposition': attachmentDisposition(`${exported.chat.title}.${json ? 'json' : 'md'}`),
      'cache-control': 'no-store',
    },
  });
}
