/**
 * The model picker of the chat header: which model the chat's next turns use, among the models of the
 * chat's provider (`PATCH /api/chats/:id {model}`; a running turn keeps its own). The provider's list
 * (`GET /api/providers/:id/models`) only suggests: a name the list lacks is sent as typed and the server
 * says what is wrong with it; it is asked for once, when the field is first focused, so opening a chat
 * costs the provider nothing. The provider itself is shown, never offered: a chat keeps its provider.
 */
import type { ApiClient, ChatSummary } from './api-client.ts';
import { h, uniqueId } from './dom.ts';

export interface ChatModelPicker {
  element: HTMLElement;
}

export function createChatModelPicker(
  api: ApiClient,
  chat: ChatSummary,
  announce: (text: string) => void,
): ChatModelPicker {
  let current = chat.model;
  const inputId = uniqueId('chat-model');
  const listId = uniqueId('chat-models');
  const list = h('datalist', { id: listId });
  const input = h('input', {
    id: inputId,
    name: 'model',
    list: listId,
    autocomplete: 'off',
    spellcheck: false,
    class: 'chat-model-input',
  });
  input.value = current;
  const problem = h('p', { class: 'error-text', role: 'alert', hidden: true });
  const button = h('button', { type: 'submit', class: 'button-secondary' }, 'Use model');
  const form = h(
    'form',
    {
      class: 'chat-model-picker',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const model = input.value.trim();
        problem.hidden = true;
        if (model === current) return;
        button.disabled = true;
        try {
          const changed = await api.updateChat(chat.id, { model });
          current = changed.model;
          input.value = current;
          announce(`The next turns use ${current}.`);
        } catch (error) {
          problem.textContent = `Could not change the model: ${(error as Error).message}`;
          problem.hidden = false;
        } finally {
          button.disabled = false;
        }
      },
    },
    h('label', { for: inputId }, `Model (${chat.provider})`),
    input,
    list,
    button,
    problem,
  );
  input.addEventListener(
    'focus',
    () => {
      void api
        .listProviderModels(chat.provider)
        .then(({ models }) => {
          list.replaceChildren(...models.map((model) => h('option', { value: model })));
          input.dataset.models = 'loaded';
        })
        // Without the list the field still takes any name; the server checks it.
        .catch(() => {
          input.dataset.models = 'unavailable';
        });
    },
    { once: true },
  );
  return { element: form };
}
