/**
 * The chat header's title with its Rename control: a button that turns the heading into a labelled
 * text field (Enter or Save renames, Escape or Cancel puts the heading back), sent to
 * `PATCH /api/chats/:id`. The server's reason for refusing a title is shown next to the field and the
 * field keeps what the user typed; focus returns to the Rename button when the edit ends.
 */
import type { ApiClient, ChatSummary } from './api-client.ts';
import { h, replaceChildren, uniqueId } from './dom.ts';

/** Fired (bubbling) on the editor's element when the chat got a new title. */
export const CHAT_RENAMED_EVENT = 'chat-renamed';

export interface ChatRenamedDetail {
  id: string;
  title: string;
}

export interface ChatTitleEditor {
  element: HTMLElement;
  /** Shows a title the server gave the chat (e.g. derived from its first message). */
  setTitle(title: string): void;
}

export function createChatTitleEditor(
  api: ApiClient,
  chatId: string,
  heading: HTMLElement,
  initialTitle: string,
): ChatTitleEditor {
  let title = initialTitle;
  heading.textContent = title || 'Untitled chat';
  const element = h('div', { class: 'chat-title-editor' });
  const renameButton = h('button', { type: 'button', class: 'button-quiet' }, 'Rename');
  renameButton.setAttribute('aria-label', 'Rename chat');
  const showHeading = () => replaceChildren(element, heading, renameButton);

  const announce = (chat: ChatSummary) => {
    element.dispatchEvent(
      new CustomEvent<ChatRenamedDetail>(CHAT_RENAMED_EVENT, {
        bubbles: true,
        detail: { id: chat.id, title: chat.title },
      }),
    );
  };

  renameButton.addEventListener('click', () => {
    const end = () => {
      showHeading();
      renameButton.focus();
    };
    const { form, input } = createRenameForm(title, {
      rename: (value) => api.updateChat(chatId, { title: value }),
      renamed: (chat) => {
        title = chat.title;
        heading.textContent = title;
        announce(chat);
        end();
      },
      cancel: end,
    });
    replaceChildren(element, form);
    input.focus();
    input.select();
  });

  showHeading();
  return {
    element,
    setTitle(next: string) {
      if (next === title) return;
      title = next;
      heading.textContent = next;
      announce({ id: chatId, title: next } as ChatSummary);
    },
  };
}

/**
 * The rename form in place of the heading: Save renames on the server (a refusal is shown on the field,
 * which keeps its text), Cancel and Escape leave it without a change.
 */
function createRenameForm(
  title: string,
  actions: {
    rename: (value: string) => Promise<ChatSummary>;
    renamed: (chat: ChatSummary) => void;
    cancel: () => void;
  },
): { form: HTMLFormElement; input: HTMLInputElement } {
  const input = h('input', {
    id: uniqueId('chat-title'),
    name: 'title',
    type: 'text',
    value: title,
    maxlength: 200,
    autocomplete: 'off',
    required: true,
  });
  const error = h('p', { class: 'error-text', role: 'alert', id: uniqueId('chat-title-error') });
  const save = h('button', { type: 'submit', class: 'button-primary' }, 'Save');
  const cancel = h('button', { type: 'button', class: 'button-quiet' }, 'Cancel');
  const form = h(
    'form',
    {
      class: 'chat-title-form',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        save.disabled = true;
        error.textContent = '';
        input.removeAttribute('aria-invalid');
        try {
          actions.renamed(await actions.rename(input.value));
        } catch (failure) {
          error.textContent = `Could not rename: ${(failure as Error).message}`;
          input.setAttribute('aria-invalid', 'true');
          input.setAttribute('aria-describedby', error.id);
          save.disabled = false;
          input.focus();
        }
      },
    },
    h('label', { for: input.id }, 'Chat title'),
    input,
    save,
    cancel,
    error,
  );
  cancel.addEventListener('click', actions.cancel);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      actions.cancel();
    }
  });
  return { form, input };
}
