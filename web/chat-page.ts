/**
 * The Chat page: the user's chats, a form to create one (provider and model from the configured
 * providers, working directory, restricted toggle), and the open chat — its stored history, a
 * composer, and the live turn (design: "a turn as an SSE stream"): text as it arrives, a card per
 * tool call, and a Cancel button that asks the server to stop the turn.
 */
import { type ApiClient, ApiError, type ChatSummary, type ProviderSummary } from './api-client.ts';
import { confirmWithDialog } from './confirm-dialog.ts';
import { h, replaceChildren, uniqueId } from './dom.ts';
import { readTurnStream } from './sse-parser.ts';
import { renderToolCallCard, toolCallSignature } from './tool-call-card.ts';
import type { ImageLoader } from './tool-result-view.ts';
import {
  applyTurnEvent,
  finishTurn,
  type Transcript,
  type TranscriptEntry,
  transcriptFromHistory,
} from './transcript.ts';

export interface ChatPageOptions {
  api: ApiClient;
  chatId: string | undefined;
  navigate: (path: string) => void;
  loadImage: ImageLoader;
}

export async function renderChatPage(container: HTMLElement, options: ChatPageOptions): Promise<void> {
  const chatList = h('ul', { class: 'chat-list' });
  const main = h('section', { class: 'chat-main' });
  const sidebar = h(
    'nav',
    { class: 'chat-sidebar', 'aria-label': 'Chats' },
    h(
      'div',
      { class: 'sidebar-header' },
      h('h2', {}, 'Chats'),
      h('a', { href: '/chats', class: 'button-primary', 'data-link': true }, 'New chat'),
    ),
    chatList,
  );
  replaceChildren(container, h('div', { class: 'chat-layout' }, sidebar, main));

  const chatsPromise = options.api.listChats().catch((error: Error) => {
    replaceChildren(chatList, h('li', { class: 'error-text' }, `Could not load chats: ${error.message}`));
    return [] as ChatSummary[];
  });
  void chatsPromise.then((chats) => renderChatList(chatList, chats, options.chatId));

  if (options.chatId) await renderChatView(main, options, options.chatId);
  else await renderNewChatForm(main, options);
}

function renderChatList(list: HTMLElement, chats: ChatSummary[], activeId: string | undefined): void {
  if (chats.length === 0) {
    replaceChildren(list, h('li', { class: 'list-empty' }, 'No chats yet.'));
    return;
  }
  replaceChildren(
    list,
    chats.map((chat) =>
      h(
        'li',
        {},
        h(
          'a',
          {
            href: `/chats/${encodeURIComponent(chat.id)}`,
            class: 'chat-link',
            'data-link': true,
            'aria-current': chat.id === activeId ? 'page' : undefined,
          },
          h('span', { class: 'chat-title' }, chat.title || 'Untitled chat'),
          h('span', { class: 'chat-meta' }, `${chat.provider} · ${chat.model}`),
        ),
      ),
    ),
  );
}

async function renderNewChatForm(main: HTMLElement, options: ChatPageOptions): Promise<void> {
  const heading = h('h1', { tabindex: -1 }, 'New chat');
  const status = h('p', { class: 'field-error', role: 'alert', hidden: true });
  replaceChildren(main, heading, h('p', { class: 'page-status', role: 'status' }, 'Loading providers…'));
  heading.focus();

  let providers: ProviderSummary[] = [];
  let providersError: string | undefined;
  try {
    providers = await options.api.listProviders();
  } catch (error) {
    providersError = (error as Error).message;
  }

  const ids = {
    provider: uniqueId('provider'),
    model: uniqueId('model'),
    models: uniqueId('models'),
    title: uniqueId('title'),
    directory: uniqueId('directory'),
    directoryHint: uniqueId('directory-hint'),
    restricted: uniqueId('restricted'),
    restrictedHint: uniqueId('restricted-hint'),
    providerHint: uniqueId('provider-hint'),
  };
  const available = providers.filter((provider) => provider.available);
  const providerSelect = h(
    'select',
    { id: ids.provider, name: 'provider', required: true, 'aria-describedby': ids.providerHint },
    providers.map((provider) =>
      h(
        'option',
        { value: provider.id, disabled: !provider.available },
        provider.available
          ? provider.id
          : `${provider.id} (unavailable${provider.reason ? `: ${provider.reason}` : ''})`,
      ),
    ),
  );
  if (available[0]) providerSelect.value = available[0].id;
  const modelList = h('datalist', { id: ids.models });
  const modelInput = h('input', {
    id: ids.model,
    name: 'model',
    type: 'text',
    required: true,
    list: ids.models,
    autocomplete: 'off',
  });
  const updateModels = () => {
    const provider = providers.find((candidate) => candidate.id === providerSelect.value);
    replaceChildren(
      modelList,
      (provider?.models ?? []).map((model) => h('option', { value: model })),
    );
    if (provider?.defaultModel && modelInput.value === '') modelInput.value = provider.defaultModel;
  };
  providerSelect.addEventListener('change', updateModels);
  updateModels();
  const titleInput = h('input', { id: ids.title, name: 'title', type: 'text', autocomplete: 'off' });
  const directoryInput = h('input', {
    id: ids.directory,
    name: 'workingDirectory',
    type: 'text',
    autocomplete: 'off',
    placeholder: '/home/me/project',
    'aria-describedby': ids.directoryHint,
  });
  const restrictedInput = h('input', {
    id: ids.restricted,
    name: 'restricted',
    type: 'checkbox',
    checked: true,
    'aria-describedby': ids.restrictedHint,
  });
  const createButton = h(
    'button',
    { type: 'submit', class: 'button-primary', disabled: available.length === 0 },
    'Create chat',
  );

  const form = h(
    'form',
    {
      class: 'new-chat-form',
      'aria-labelledby': heading.id || undefined,
      onsubmit: async (event: Event) => {
        event.preventDefault();
        status.hidden = true;
        if (modelInput.value.trim() === '') {
          status.textContent = 'Enter a model name.';
          status.hidden = false;
          modelInput.focus();
          return;
        }
        createButton.disabled = true;
        try {
          const chat = await options.api.createChat({
            provider: providerSelect.value,
            model: modelInput.value.trim(),
            title: titleInput.value.trim() || undefined,
            workingDirectory: directoryInput.value.trim() || undefined,
            restricted: restrictedInput.checked,
          });
          options.navigate(`/chats/${encodeURIComponent(chat.id)}`);
        } catch (error) {
          status.textContent = `Could not create the chat: ${(error as Error).message}`;
          status.hidden = false;
          createButton.disabled = false;
        }
      },
    },
    h(
      'div',
      { class: 'field' },
      h('label', { for: ids.provider }, 'Provider'),
      providerSelect,
      h(
        'p',
        { class: 'field-hint', id: ids.providerHint },
        providersError
          ? `Could not load providers: ${providersError}`
          : available.length === 0
            ? 'No provider is configured on this server.'
            : 'Providers configured on this server.',
      ),
    ),
    h('div', { class: 'field' }, h('label', { for: ids.model }, 'Model'), modelInput, modelList),
    h('div', { class: 'field' }, h('label', { for: ids.title }, 'Title (optional)'), titleInput),
    h(
      'div',
      { class: 'field' },
      h('label', { for: ids.directory }, 'Working directory (optional)'),
      directoryInput,
      h(
        'p',
        { class: 'field-hint', id: ids.directoryHint },
        'An absolute directory on the server. File tools resolve relative paths against it.',
      ),
    ),
    h(
      'div',
      { class: 'field field-checkbox' },
      h(
        'div',
        { class: 'checkbox-row' },
        restrictedInput,
        h('label', { for: ids.restricted }, 'Restrict file tools to the working directory'),
      ),
      h(
        'p',
        { class: 'field-hint', id: ids.restrictedHint },
        'Paths outside the working directory are refused.',
      ),
    ),
    status,
    h('div', { class: 'form-actions' }, createButton),
  );
  replaceChildren(main, heading, form);
  heading.focus();
}

async function renderChatView(main: HTMLElement, options: ChatPageOptions, chatId: string): Promise<void> {
  const { api } = options;
  const heading = h('h1', { tabindex: -1 }, 'Chat');
  replaceChildren(main, heading, h('p', { class: 'page-status', role: 'status' }, 'Loading chat…'));
  heading.focus();

  let transcript: Transcript;
  let chat: ChatSummary;
  try {
    const loaded = await api.getChat(chatId);
    chat = loaded;
    transcript = transcriptFromHistory(loaded.messages);
  } catch (error) {
    const message =
      error instanceof ApiError && error.status === 404
        ? 'This chat does not exist.'
        : `Could not load the chat: ${(error as Error).message}`;
    replaceChildren(main, heading, h('p', { class: 'error-text', role: 'alert' }, message));
    return;
  }
  heading.textContent = chat.title || 'Untitled chat';

  const log = h('div', {
    class: 'transcript',
    role: 'log',
    'aria-label': 'Conversation',
    'aria-live': 'polite',
  });
  const rendered = new Map<TranscriptEntry, { node: HTMLElement; signature: string }>();
  const emptyNote = h('p', { class: 'list-empty' }, 'No messages yet. Say something below.');

  const renderTranscript = () => {
    const nearBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 80;
    const nodes: HTMLElement[] = [];
    for (const entry of transcript.entries) {
      const signature = entrySignature(entry);
      const previous = rendered.get(entry);
      if (previous && previous.signature === signature) {
        nodes.push(previous.node);
        continue;
      }
      const node = renderEntry(entry, options.loadImage);
      if (previous) keepDisclosureState(previous.node, node);
      rendered.set(entry, { node, signature });
      nodes.push(node);
    }
    const current = new Set(transcript.entries);
    for (const key of rendered.keys()) if (!current.has(key)) rendered.delete(key);
    if (nodes.length === 0) nodes.push(emptyNote);
    // Reorder/replace only where needed so open <details> and text selection survive streaming.
    nodes.forEach((node, index) => {
      if (log.children[index] !== node) log.insertBefore(node, log.children[index] ?? null);
    });
    while (log.children.length > nodes.length) log.lastElementChild!.remove();
    if (nearBottom) log.scrollTop = log.scrollHeight;
  };

  let renderQueued = false;
  const scheduleRender = () => {
    if (renderQueued) return;
    renderQueued = true;
    requestAnimationFrame(() => {
      renderQueued = false;
      renderTranscript();
    });
  };

  const textarea = h('textarea', {
    id: uniqueId('message'),
    name: 'message',
    rows: 3,
    required: true,
    placeholder: 'Ask something… (Enter sends, Shift+Enter for a new line)',
  });
  const sendButton = h('button', { type: 'submit', class: 'button-primary' }, 'Send');
  const cancelButton = h('button', { type: 'button', class: 'button-danger', hidden: true }, 'Cancel');
  const turnStatus = h('p', { class: 'turn-status', role: 'status' });
  let turnController: AbortController | undefined;

  const setRunning = (running: boolean) => {
    transcript.running = running;
    sendButton.disabled = running;
    cancelButton.hidden = !running;
    cancelButton.disabled = false;
    turnStatus.textContent = running ? 'The model is working…' : '';
  };

  const runTurn = async (message: string) => {
    transcript.entries.push({ kind: 'user', text: message });
    setRunning(true);
    transcript.doneReason = undefined;
    renderTranscript();
    turnController = new AbortController();
    try {
      const response = await api.startTurn(chatId, message, turnController.signal);
      await readTurnStream(response, (event) => {
        applyTurnEvent(transcript, event);
        scheduleRender();
      });
      if (transcript.doneReason === undefined)
        finishTurn(transcript, turnController.signal.aborted ? 'cancelled' : 'error');
    } catch (error) {
      if (turnController.signal.aborted) finishTurn(transcript, 'cancelled');
      else {
        transcript.entries.push({
          kind: 'notice',
          tone: 'error',
          text: `The turn failed: ${(error as Error).message}`,
        });
        finishTurn(transcript, 'failed');
      }
    } finally {
      turnController = undefined;
      setRunning(false);
      renderTranscript();
      textarea.focus();
    }
  };

  cancelButton.addEventListener('click', async () => {
    cancelButton.disabled = true;
    turnStatus.textContent = 'Cancelling…';
    const controller = turnController;
    try {
      await api.cancelTurn(chatId);
    } catch {
      // The server could not be asked; dropping the stream also ends the turn server-side.
      controller?.abort();
    }
  });

  const form = h(
    'form',
    {
      class: 'composer',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const message = textarea.value.trim();
        if (message === '' || transcript.running) return;
        textarea.value = '';
        void runTurn(message);
      },
    },
    h('label', { for: textarea.id, class: 'visually-hidden' }, 'Message'),
    textarea,
    h('div', { class: 'composer-actions' }, turnStatus, cancelButton, sendButton),
  );
  textarea.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

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
          await api.deleteChat(chatId);
          options.navigate('/chats');
        } catch (error) {
          turnStatus.textContent = `Could not delete: ${(error as Error).message}`;
        }
      },
    },
    'Delete chat',
  );

  const facts = [`${chat.provider} · ${chat.model}`];
  if (chat.workingDirectory)
    facts.push(`in ${chat.workingDirectory}${chat.restricted ? ' (restricted)' : ''}`);
  replaceChildren(
    main,
    h(
      'div',
      { class: 'chat-header' },
      h('div', {}, heading, h('p', { class: 'chat-meta' }, facts.join(' — '))),
      deleteButton,
    ),
    log,
    form,
  );
  renderTranscript();
  log.scrollTop = log.scrollHeight;
  textarea.focus();
}

function entrySignature(entry: TranscriptEntry): string {
  switch (entry.kind) {
    case 'tool':
      return toolCallSignature(entry);
    case 'notice':
      return entry.text;
    default:
      return String(entry.text.length);
  }
}

function renderEntry(entry: TranscriptEntry, loadImage: ImageLoader): HTMLElement {
  switch (entry.kind) {
    case 'user':
      return h(
        'div',
        { class: 'message message-user' },
        h('span', { class: 'visually-hidden' }, 'You: '),
        entry.text,
      );
    case 'assistant':
      return h(
        'div',
        { class: 'message message-assistant' },
        h('span', { class: 'visually-hidden' }, 'Model: '),
        entry.text,
      );
    case 'notice':
      return h('p', { class: `notice notice-${entry.tone}` }, entry.text);
    case 'tool':
      return renderToolCallCard(entry, loadImage);
  }
}

/** Carries the user's open/closed choice of each disclosure from an old card to its replacement. */
function keepDisclosureState(previous: HTMLElement, next: HTMLElement): void {
  const before = previous.querySelectorAll('details');
  const after = next.querySelectorAll('details');
  for (const oldDetails of before) {
    const match = [...after].find((candidate) => candidate.className === oldDetails.className);
    if (match && oldDetails.dataset.userToggled === 'true') {
      match.open = oldDetails.open;
      match.dataset.userToggled = 'true';
    }
  }
}
