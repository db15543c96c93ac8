/**
 * Where a chat works, as its header says it: the workspace by its name and the folder below it
 * ("in My workspace / app"), never the server's path, and whether it reaches all workspaces. The
 * names come from `GET /api/workspaces`; until they arrive (or when they cannot) the line names no
 * path at all.
 */
import type { ApiClient, ChatSummary, WorkspaceSummary } from './api-client.ts';
import { locateFiles, placeName } from './files-location.ts';

/** The header's text for `chat` among `workspaces`; '' when it has no working directory. */
export function chatPlaceText(
  chat: Pick<ChatSummary, 'workingDirectory' | 'confined'>,
  workspaces: readonly WorkspaceSummary[] | undefined,
): string {
  if (!chat.workingDirectory) return '';
  const reach = chat.confined === false ? ' (reaches all my workspaces)' : '';
  if (workspaces === undefined) return reach === '' ? '' : `Reaches all my workspaces`;
  const location = locateFiles(workspaces, chat.workingDirectory);
  if (!location) return `in a folder outside your workspaces${reach}`;
  return `in ${placeName(location)}${reach}`;
}

/** Fills `element` with the chat's place once the workspaces are listed. */
export function showChatPlace(api: ApiClient, chat: ChatSummary, element: HTMLElement): void {
  element.textContent = chatPlaceText(chat, undefined);
  void api
    .listWorkspaces()
    .then(({ workspaces }) => {
      element.textContent = chatPlaceText(chat, workspaces);
    })
    .catch(() => {});
}
