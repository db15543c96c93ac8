/**
 * The Delete chat button of an open chat: it asks first (the deletion cannot be undone), then deletes
 * the chat on the server and leaves for the chat list; a failure is shown on the chat's status line
 * and the chat stays open.
 */
import type { ChatPageOptions } from './chat-page-options.ts';
import { confirmWithDialog } from './confirm-dialog.ts';
import { h } from './dom.ts';

export function createDeleteChatButton(
  api: ChatPageOptions['api'],
  chatId: string,
  navigate: ChatPageOptions['navigate'],
  showStatus: (text: string) => void,
): HTMLButtonElement {
  return h(
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
          await api.deleteChat(chatId);
          navigate('/chats');
        } catch (error) {
          showStatus(`Could not delete: ${(error as Error).message}`);
        }
      },
    },
    'Delete chat',
  );
}
