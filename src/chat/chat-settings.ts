/**
 * What a chat's next turns run with, as `PATCH /api/chats/:id` changes it: the model (the provider
 * never changes: the history holds that provider's items) and the chat's own system prompt. A turn
 * reads both when it starts, so a running turn keeps the ones it started with
 * (docs/decisions/2026-12-02-chat-system-prompt-edits.md).
 */
import type { WorkspaceService } from '../workspaces/workspace-service.ts';
import { checkModel, checkSystemPrompt } from './chat-limits.ts';
import type { Chat, ChatRepository } from './chat-repository.ts';
import { type ChatView, chatNotFound, chatPresenter } from './chat-views.ts';
import { invalid } from './storable-text.ts';

export interface ChatSettingsUpdate {
  model?: string;
  /** Only the chat's own provider is accepted (a client may send the pair it shows). */
  provider?: string;
  /** Trimmed; blank or null removes the chat's own prompt. */
  systemPrompt?: string | null;
}

/** The checked values of an update: what is written, undefined for what stays. */
export interface CheckedChatSettings {
  model?: string;
  systemPrompt?: string | null;
}

/** Checks the values alone (before any field of the request is written). @throws ChatError `invalid_request`. */
export function checkChatSettings(update: ChatSettingsUpdate): CheckedChatSettings {
  return {
    ...(update.model === undefined ? {} : { model: checkModel(update.model) }),
    ...(update.systemPrompt === undefined ? {} : { systemPrompt: checkSystemPrompt(update.systemPrompt) }),
  };
}

/** True when the update names a setting at all. */
export function changesSettings(update: ChatSettingsUpdate): boolean {
  return update.model !== undefined || update.provider !== undefined || update.systemPrompt !== undefined;
}

/**
 * Writes the checked settings of the user's chat (already found) and reports it as it applies now.
 * @throws ChatError `invalid_request` (another provider), `not_found` (deleted meanwhile).
 */
export async function changeChatSettings(
  dependencies: { repository: ChatRepository; workspaces: WorkspaceService },
  chat: Chat,
  provider: string | undefined,
  checked: CheckedChatSettings,
): Promise<ChatView> {
  if (provider !== undefined && provider !== chat.provider) {
    throw invalid(
      `A chat's provider cannot change (this chat's is "${chat.provider}", got "${provider}"): its history holds items of that provider that another one cannot read. Start a new chat with provider "${provider}" instead.`,
    );
  }
  const { repository } = dependencies;
  // Deleted between the check and the update: the same answer as for a chat that never existed.
  if (checked.model !== undefined && !(await repository.changeModel(chat.id, checked.model))) {
    throw chatNotFound(chat.id);
  }
  if (
    checked.systemPrompt !== undefined &&
    !(await repository.changeSystemPrompt(chat.id, checked.systemPrompt))
  ) {
    throw chatNotFound(chat.id);
  }
  const present = await chatPresenter(dependencies.workspaces, chat.userId);
  return present({ ...chat, ...checked });
}
