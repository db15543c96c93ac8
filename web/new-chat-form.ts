/**
 * A new chat, ready to type into: a composer whose Send creates the chat and sends the message as its
 * first (`first-message.ts` hands it to the chat's own view), with the chat's options folded away under
 * "Chat options" and summed up on that line. The options are the provider (from `GET /api/providers`; unavailable ones disabled with the reason),
 * model (free text, suggested from the models the provider lists), title, system prompt, and where the
 * chat works: one of the user's workspaces and a folder inside it
 * (`workspace-picker.ts`). A chat is confined to that folder; the "all my workspaces" box appears only
 * when the server allows this user unrestricted chats, and is off by default. The provider and model of
 * the user's last new chat are remembered on the server and preselected; without one, the first
 * configured provider and the first model it lists. "Create chat" among the options creates the chat
 * without a message. A missing model opens the options with the reason. A server with no provider at
 * all gets a setup view naming the variables to set instead of a form that cannot succeed.
 */
import type { ChatModelPreference, ProviderSummary, WorkspaceList } from './api-client.ts';
import { autoGrow } from './auto-grow.ts';
import type { ChatPageOptions } from './chat-page-options.ts';
import { append, h, replaceChildren, uniqueId } from './dom.ts';
import { holdFirstMessage } from './first-message.ts';
import { initialModelChoice, PROVIDER_DOCS_PAGE, providerSetupHints } from './model-choice.ts';
import { createChatBodyFrom } from './workspace-folders.ts';
import { createWorkspacePicker } from './workspace-picker.ts';

export async function renderNewChatForm(main: HTMLElement, options: ChatPageOptions): Promise<void> {
  const heading = h('h1', { tabindex: -1 }, 'New chat');
  const status = h('p', { class: 'field-error', role: 'alert', hidden: true });
  replaceChildren(
    main,
    heading,
    h('p', { class: 'page-status', role: 'status' }, 'Loading providers and workspaces…'),
  );
  heading.focus();

  let providers: ProviderSummary[] = [];
  let providersError: string | undefined;
  let workspaces: WorkspaceList = { workspaces: [], allowUnrestricted: false };
  let workspacesError: string | undefined;
  let remembered: ChatModelPreference | null = null;
  await Promise.all([
    // A preference that cannot be read only loses the preselection; the form still works.
    options.api.getChatModelPreference().then(
      (preference) => {
        remembered = preference;
      },
      () => {},
    ),
    options.api.listProviders().then(
      (listed) => {
        providers = listed;
      },
      (error: Error) => {
        providersError = error.message;
      },
    ),
    options.api.listWorkspaces().then(
      (listed) => {
        workspaces = listed;
      },
      (error: Error) => {
        workspacesError = error.message;
      },
    ),
  ]);

  if (!providersError && !providers.some((provider) => provider.available)) {
    renderProviderSetup(main, heading, providers);
    return;
  }

  const ids = {
    provider: uniqueId('provider'),
    model: uniqueId('model'),
    models: uniqueId('models'),
    modelHint: uniqueId('model-hint'),
    systemPrompt: uniqueId('system-prompt'),
    title: uniqueId('title'),
    unrestricted: uniqueId('unrestricted'),
    unrestrictedHint: uniqueId('unrestricted-hint'),
    providerHint: uniqueId('provider-hint'),
    message: uniqueId('first-message'),
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
  const initial = initialModelChoice(providers, remembered);
  if (initial) providerSelect.value = initial.provider;
  const modelList = h('datalist', { id: ids.models });
  const modelInput = h('input', {
    id: ids.model,
    name: 'model',
    type: 'text',
    list: ids.models,
    autocomplete: 'off',
    'aria-describedby': ids.modelHint,
  });
  modelInput.value = initial?.model ?? '';
  const modelHint = h('p', { class: 'field-hint', id: ids.modelHint, 'aria-live': 'polite' });
  let modelRequest = 0;
  const updateModels = async () => {
    const providerId = providerSelect.value;
    const request = ++modelRequest;
    replaceChildren(modelList);
    if (!providers.some((provider) => provider.id === providerId && provider.available)) return;
    modelHint.textContent = `Asking ${providerId} which models it offers…`;
    try {
      const listed = await options.api.listProviderModels(providerId);
      // A later provider change owns the field now.
      if (request !== modelRequest) return;
      replaceChildren(
        modelList,
        listed.models.map((model) => h('option', { value: model })),
      );
      // Nothing remembered or typed: the first model the provider lists, so Send works at once.
      if (modelInput.value.trim() === '' && listed.models[0]) {
        modelInput.value = listed.models[0];
        summarize();
      }
      modelHint.textContent =
        listed.models.length === 0
          ? `${providerId} listed no models; type the model name.`
          : `${listed.models.length} models listed by ${providerId}; pick one or type any name.`;
    } catch (error) {
      if (request !== modelRequest) return;
      modelHint.textContent = `Could not list the models of ${providerId} (${(error as Error).message}); type the model name.`;
    }
  };
  providerSelect.addEventListener('change', () => {
    // Another provider's model name would only be refused: its own list fills the field.
    modelInput.value = '';
    void updateModels();
  });
  const titleInput = h('input', { id: ids.title, name: 'title', type: 'text', autocomplete: 'off' });
  const systemPromptInput = h('textarea', {
    id: ids.systemPrompt,
    name: 'systemPrompt',
    rows: 3,
    maxlength: MAX_SYSTEM_PROMPT_CHARACTERS,
    placeholder: 'Instructions the model follows in every turn of this chat',
  });
  const picker = createWorkspacePicker(options.api, workspaces);
  const unrestrictedInput = h('input', {
    id: ids.unrestricted,
    name: 'unrestricted',
    type: 'checkbox',
    'aria-describedby': ids.unrestrictedHint,
  });
  const createButton = h(
    'button',
    { type: 'submit', class: 'button-secondary', disabled: available.length === 0 },
    'Create chat',
  );
  const sendButton = h(
    'button',
    { type: 'submit', class: 'button-primary', disabled: available.length === 0 },
    'Send',
  );
  const message = h('textarea', {
    id: ids.message,
    name: 'message',
    rows: 2,
    placeholder: 'Ask something… (Enter sends, Shift+Enter for a new line)',
  });
  const messageSize = autoGrow(message);
  const summary = h('span', { class: 'new-chat-summary' });
  const summarize = () => {
    const model = modelInput.value.trim() || 'no model chosen';
    summary.textContent = `${providerSelect.value || 'no provider'} · ${model}`;
  };
  const chatOptions = h(
    'details',
    { class: 'new-chat-options' },
    h('summary', { class: 'new-chat-options-summary' }, 'Chat options: ', summary),
  );

  const form = h(
    'form',
    {
      class: 'new-chat-form',
      novalidate: true,
      'aria-labelledby': heading.id || undefined,
      oninput: summarize,
      onchange: summarize,
      onsubmit: async (event: Event) => {
        event.preventDefault();
        status.hidden = true;
        const sending = (event as SubmitEvent).submitter !== createButton;
        const first = message.value.trim();
        if (sending && first === '') {
          status.textContent = 'Type your first message, or create the chat under Chat options.';
          status.hidden = false;
          message.focus();
          return;
        }
        if (modelInput.value.trim() === '') {
          chatOptions.open = true;
          status.textContent = `Choose a model: type its name under Chat options${modelHint.textContent ? ` (${modelHint.textContent})` : ''}.`;
          status.hidden = false;
          modelInput.focus();
          return;
        }
        createButton.disabled = true;
        sendButton.disabled = true;
        try {
          const chat = await options.api.createChat(
            createChatBodyFrom({
              provider: providerSelect.value,
              model: modelInput.value,
              title: titleInput.value,
              folder: picker.folder(),
              unrestricted: unrestrictedInput.checked,
              allowUnrestricted: workspaces.allowUnrestricted,
              systemPrompt: systemPromptInput.value,
            }),
          );
          // The chat exists either way; a preference that cannot be saved only loses the next preselection.
          await options.api
            .saveChatModelPreference(providerSelect.value, modelInput.value.trim())
            .catch(() => null);
          if (sending) holdFirstMessage(chat.id, first);
          options.navigate(`/chats/${encodeURIComponent(chat.id)}`);
        } catch (error) {
          status.textContent = `Could not create the chat: ${(error as Error).message}`;
          status.hidden = false;
          createButton.disabled = false;
          sendButton.disabled = false;
        }
      },
    },
    chatOptions,
    h('p', { class: 'list-empty new-chat-note' }, 'No messages yet. Say something below.'),
    status,
    h(
      'div',
      { class: 'composer' },
      h('label', { for: ids.message, class: 'visually-hidden' }, 'Message'),
      message,
      h('div', { class: 'composer-actions' }, sendButton),
    ),
  );
  append(chatOptions, [
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
    h('div', { class: 'field' }, h('label', { for: ids.model }, 'Model'), modelInput, modelList, modelHint),
    h('div', { class: 'field' }, h('label', { for: ids.title }, 'Title (optional)'), titleInput),
    h(
      'div',
      { class: 'field' },
      h('label', { for: ids.systemPrompt }, 'System prompt (optional)'),
      systemPromptInput,
    ),
    workspacesError
      ? h(
          'p',
          { class: 'field-hint error-text' },
          `Could not load your workspaces: ${workspacesError}. The chat starts in your personal workspace.`,
        )
      : picker.element,
    workspaces.allowUnrestricted &&
      h(
        'div',
        { class: 'field field-checkbox' },
        h(
          'div',
          { class: 'checkbox-row' },
          unrestrictedInput,
          h('label', { for: ids.unrestricted }, 'Let this chat reach all my workspaces'),
        ),
        h(
          'p',
          { class: 'field-hint', id: ids.unrestrictedHint },
          'Off: tools reach only the folder chosen above. On: every workspace listed above, never anything else.',
        ),
      ),
    h('div', { class: 'form-actions' }, createButton),
  ]);
  message.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit(sendButton);
    }
  });
  summarize();
  void updateModels();
  replaceChildren(main, heading, form);
  messageSize.resize();
  message.focus();
}

/** The server's limit for a chat's system prompt (`MAX_SYSTEM_PROMPT_LENGTH`). */
const MAX_SYSTEM_PROMPT_CHARACTERS = 50_000;

/** No provider is configured: say which variables would enable each, and where to read more. */
function renderProviderSetup(main: HTMLElement, heading: HTMLElement, providers: ProviderSummary[]): void {
  heading.textContent = 'Set up a model provider';
  replaceChildren(
    main,
    heading,
    h(
      'section',
      { class: 'provider-setup' },
      h(
        'p',
        {},
        'No model provider is configured on this server, so no chat can start yet. An operator sets one of these in the server’s environment and restarts it:',
      ),
      h(
        'ul',
        { class: 'provider-setup-list' },
        providerSetupHints(providers).map((hint) =>
          h(
            'li',
            {},
            h('strong', {}, hint.provider),
            ': ',
            hint.variables.length > 0
              ? hint.variables.flatMap((variable, index) => [index > 0 ? ', ' : '', h('code', {}, variable)])
              : hint.reason,
          ),
        ),
      ),
      h(
        'p',
        {},
        'Each provider’s variables and options are described in ',
        h('code', {}, PROVIDER_DOCS_PAGE),
        '.',
      ),
    ),
  );
  heading.focus();
}
