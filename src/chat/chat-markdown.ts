/**
 * A chat export as Markdown, for reading and sharing: the title, provider and model once, each message
 * under a heading of who wrote it and when, each tool call's arguments and each result's output in a
 * fenced block that no backtick run of the content can close, and after each turn how it ended and what
 * it used. Provider items (opaque reasoning data) are left out; the JSON export keeps them.
 */
import type { ChatMessage } from './chat-message.ts';
import type { ChatExport } from './chat-organizer.ts';
import type { TurnSummary } from './chat-views.ts';

const numbers = new Intl.NumberFormat('en');

/** A fenced block around `text`: a fence one backtick longer than any run inside (at least three). */
export function fencedBlock(text: string, language = ''): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

/** JSON text pretty-printed when it parses, else as it is. */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function messageMarkdown(message: ChatMessage): string | undefined {
  const { item } = message;
  switch (item.type) {
    case 'user_text': {
      // The files attached to it, one real path a line (a fence, so no name becomes markdown).
      const paths = item.attachments?.map((attachment) => attachment.path) ?? [];
      const files = paths.length === 0 ? '' : `\n\nAttached files:\n\n${fencedBlock(paths.join('\n'))}`;
      return `## User · ${message.createdAt}\n\n${item.text}${files}`;
    }
    case 'assistant_text':
      return `## Assistant · ${message.createdAt}\n\n${item.text}`;
    case 'tool_call':
      return `### Tool call \`${item.name}\` · ${item.callId}\n\n${fencedBlock(prettyJson(item.arguments), 'json')}`;
    case 'tool_result':
      return `### Tool result \`${item.name}\` · ${item.ok ? 'ok' : 'failed'}\n\n${fencedBlock(prettyJson(item.output), 'json')}`;
    default:
      return undefined;
  }
}

function usageLine(usage: unknown): string | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const { modelCalls, inputTokens, outputTokens } = usage as Record<string, unknown>;
  if (typeof inputTokens !== 'number' || typeof outputTokens !== 'number') return undefined;
  const calls = typeof modelCalls === 'number' ? `${numbers.format(modelCalls)} model calls · ` : '';
  return `${calls}${numbers.format(inputTokens)} tokens in · ${numbers.format(outputTokens)} out`;
}

function turnLine(turn: TurnSummary): string {
  const parts = [`Turn ${turn.state}`];
  const usage = usageLine(turn.usage);
  if (usage) parts.push(usage);
  if (turn.durations) parts.push(`${(turn.durations.totalMs / 1000).toFixed(1)} s`);
  if (turn.error) parts.push(`error: ${turn.error.message.replace(/\s+/g, ' ')}`);
  return `> ${parts.join(' · ')}`;
}

export function chatExportMarkdown(exported: ChatExport): string {
  const { chat, usage } = exported;
  const lines = [
    `# ${chat.title}`,
    '',
    `- Model: ${chat.model} (${chat.provider})`,
    `- Created: ${chat.createdAt}`,
    `- Last activity: ${chat.lastActivityAt}`,
    `- Usage: ${numbers.format(usage.modelCalls)} model calls · ${numbers.format(usage.inputTokens)} tokens in · ${numbers.format(usage.outputTokens)} out`,
    `- Exported: ${exported.exportedAt}`,
  ];
  const sections: string[] = [lines.join('\n')];
  const turns = exported.turns;
  let turnIndex = 0;
  const closeTurnsBefore = (seq: number) => {
    // A turn ends where the next one starts; a turn is closed once a message past it comes.
    while (turnIndex < turns.length) {
      const next = turns[turnIndex + 1];
      if (next === undefined || seq <= next.messageSeqAtStart) return;
      sections.push(turnLine(turns[turnIndex]!));
      turnIndex += 1;
    }
  };
  for (const message of exported.messages) {
    closeTurnsBefore(message.seq);
    const text = messageMarkdown(message);
    if (text !== undefined) sections.push(text);
  }
  for (; turnIndex < turns.length; turnIndex += 1) sections.push(turnLine(turns[turnIndex]!));
  return `${sections.join('\n\n')}\n`;
}
