/**
 * The open chat's header: its title (the editor the view owns), the model picker on one line with the
 * chat's place (its workspace by name and folder, whether it reaches all workspaces: `chat-place.ts`), the chat's token usage, the system
 * prompt's button (beside the model picker) and panel (`chat-system-prompt.ts`), and Delete, which asks first and then leaves for
 * the chat list. A failed delete is said on the view's status line.
 */
import type { ApiClient, ChatSummary } from './api-client.ts';
import { createChatModelPicker } from './chat-model-picker.ts';
import { showChatPlace } from './chat-place.ts';
import { createChatSystemPrompt } from './chat-system-prompt.ts';
import { confirmWithDialog } from './confirm-dialog.ts';
import { h } from './dom.ts';

export interface ChatHeaderOptions {
  api: ApiClient;
  chat: ChatSummary;
  /** The title editor's element. */
  title: HTMLElement;
  /** Where the view writes the chat's token usage. */
  usage: HTMLElement;
  announce: (text: string) => void;
  navigate: (path: string) => void;
  showStatus: (text: string) => void;
}

/** The header, and under it the system prompt's panel (hidden until its button opens it). */
export function createChatHeader(options: ChatHeaderOptions): [HTMLElement, HTMLElement] {
  const { api, chat } = options;
  const deleteButton = h(
    'button',
    {
      type: 'button',
      class: 'button-quiet',
      onclick: async () => {
        const confirmed = await confirmWithDialog({
          title: 'Delete this chat?',
          body: h('p', {}, 'Its messages are deleted from the server. This cannot be undone.'),
          confirmLabel: 'Delete chat',
          danger: true,
        });
        if (!confirmed) return;
        try {
          await api.deleteChat(chat.id);
          options.navigate('/chats');
        } catch (error) {
          options.showStatus(`Could not delete: ${(error as Error).message}`);
        }
      },
    },
    'Delete chat',
  );
  const place = h('p', { class: 'chat-meta' });
  showChatPlace(api, chat, place);
  const picker = createChatModelPicker(api, chat, options.announce).element;
  const systemPrompt = createChatSystemPrompt(api, chat, options.announce);
  const element = h(
    'div',
    { class: 'chat-header' },
    h(
      'div',
      {},
      // The system prompt's button on the title's line, or on phones beside the model picker, whose
      // line has room: either way it costs the transcript no height.
      h('div', { class: 'chat-title-line' }, options.title, systemPrompt.buttons.wide),
      // The picker and the facts share a line, so the header leaves the transcript its height.
      h('div', { class: 'chat-facts' }, picker, systemPrompt.buttons.narrow, place),
      options.usage,
    ),
    deleteButton,
  );
  return [element, systemPrompt.panel];
}
