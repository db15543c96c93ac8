/**
 * Files a user attaches to a message (docs/chats.md, "Attachments"). Guarantees:
 * - An attachment is a regular file the chat's tools can read: its path is decided by the tools' own
 *   resolver and access policy over the chat's reachable set (a confined chat: its working directory),
 *   then the file is opened without following links and checked on its descriptor, as a tool's read
 *   is. Anything outside gets one fixed answer per attachment, so nothing about what lies outside the
 *   chat's reach can be learnt from it; inside, the answer says what is wrong (missing, a directory…).
 * - The file is looked at where the user's file work runs (`inspectFile` of the file operations: the
 *   user's file worker, or this process), so with workers the server follows no name of the user's
 *   tree for it; the real location answered is decided again by the server's own policy.
 * - The stored message keeps the text as typed and each file's real path; the model reads the message
 *   with a note listing those paths after it (`withAttachmentNotes`), on this turn and every later one.
 */
import type { ConversationItem, MessageAttachment } from '../contracts/conversation-item.ts';
import { errorMessage } from '../errors/error-message.ts';
import { fileOperationsFor } from '../sandbox/host-file-operations.ts';
import { getAccessPolicy } from '../tools/access/access-policy.ts';
import type { ReachableSet } from '../tools/access/reachable-set.ts';
import { ToolError } from '../tools/errors.ts';
import type { InspectedFile } from '../tools/fs/file-operations.ts';
import type { ToolContext } from '../tools/types.ts';
import { userFileContext } from '../tools/user-file-context.ts';
import { ChatError } from './chat-errors.ts';

/** Most files one message carries. */
export const MAX_ATTACHMENTS = 20;

function refuse(index: number, path: string, why: string): ChatError {
  return new ChatError('invalid_attachment', `Attachment ${index + 1} (${JSON.stringify(path)}) ${why}`);
}

/** What the chat reaches, in the words of a refusal. */
function reachOf(reachable: ReachableSet, confined: boolean): string {
  return confined
    ? `this chat's working directory (${reachable.workingDirectory})`
    : "this chat's workspaces";
}

async function checkOne(
  path: string,
  index: number,
  context: ToolContext,
  outside: string,
): Promise<MessageAttachment> {
  let found: InspectedFile;
  try {
    found = await fileOperationsFor(context).inspectFile({ path, argument: `attachments[${index}].path` });
    if (found.kind === 'missing') throw refuse(index, path, 'does not exist.');
    // The second wall: wherever the inspection ran, its answer is decided again here, lexically.
    (await getAccessPolicy(context)).require(found.real, 'read', path, found.real);
    if (found.kind === 'directory')
      throw refuse(index, path, 'is a directory; attach the files in it instead.');
    if (found.kind === 'special')
      throw refuse(index, path, 'is not a regular file (a FIFO, socket or device).');
  } catch (error) {
    if (ChatError.isInstance(error)) throw error;
    if (ToolError.isInstance(error) && error.classification === 'permission_denied')
      throw refuse(index, path, outside);
    if ((error as { code?: unknown }).code === 'ENOENT') throw refuse(index, path, 'does not exist.');
    throw refuse(index, path, `cannot be attached: ${errorMessage(error)}`);
  }
  return { path: found.real };
}

/**
 * The attachments of a new message as they are stored: each path (absolute, `~/…`, or relative to the
 * chat's working directory, as a tool's) checked against the chat's access (`accessOf`, asked only
 * when there are paths) and turned into its file's real path, duplicates once; undefined for none.
 * @throws ChatError `invalid_attachment` naming the first attachment refused and why.
 */
export async function checkAttachments(
  paths: readonly string[],
  accessOf: () => Promise<{ reachable: ReachableSet; confined: boolean }>,
  userId: string,
  now: () => number,
): Promise<MessageAttachment[] | undefined> {
  if (paths.length === 0) return undefined;
  if (paths.length > MAX_ATTACHMENTS) {
    throw new ChatError(
      'invalid_attachment',
      `A message carries at most ${MAX_ATTACHMENTS} attachments, got ${paths.length}.`,
    );
  }
  const access = await accessOf();
  const context = userFileContext(userId, access.reachable, now);
  const outside = `is not a file inside ${reachOf(access.reachable, access.confined)}; attach a file from there.`;
  const checked: MessageAttachment[] = [];
  for (const [index, path] of paths.entries()) {
    const attachment = await checkOne(path, index, context, outside);
    if (!checked.some((known) => known.path === attachment.path)) checked.push(attachment);
  }
  return checked;
}

/** The note the model reads after a message with attachments: each path as a JSON string. */
export function attachmentNote(attachments: readonly MessageAttachment[]): string {
  return [
    '[Files the user attached to this message; read them with the file tools:',
    ...attachments.map((attachment) => `- ${JSON.stringify(attachment.path)}`),
    ']',
  ].join('\n');
}

/** The items as the model reads them: a message with attachments carries its note, the field itself goes. */
export function withAttachmentNotes(items: readonly ConversationItem[]): ConversationItem[] {
  return items.map((item) =>
    item.type === 'user_text' && item.attachments !== undefined && item.attachments.length > 0
      ? { type: 'user_text', text: `${item.text}\n\n${attachmentNote(item.attachments)}` }
      : item,
  );
}
