/**
 * The new-chat form: provider (from `GET /api/providers`; unavailable ones disabled with the reason),
 * model, title, and where the chat works: one of the user's workspaces and a folder inside it
 * (`workspace-picker.ts`). A chat is confined to that folder; the "all my workspaces" box appears only
 * when the server allows this user unrestricted chats, and is off by default.
 */
import type { ProviderSummary, WorkspaceList } from './api-client.ts';
import type { ChatPageOptions } from './chat-page-options.ts';
import { h, replaceChildren, uniqueId } from './dom.ts';
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
  await Promise.all([
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

  const ids = {
    provider: uniqueId('provider'),
    model: uniqueId('model'),
    models: uniqueId('models'),
    title: uniqueId('title'),
    unrestricted: uniqueId('unrestricted'),
    unrestrictedHint: uniqueId('unrestricted-hint'),
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
  const picker = createWorkspacePicker(options.api, workspaces);
  const unrestrictedInput = h('input', {
    id: ids.unrestricted,
    name: 'unrestricted',
    type: 'checkbox',
    'aria-describedby': ids.unrestrictedHint,
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
          const chat = await options.api.createChat(
            createChatBodyFrom({
              provider: providerSelect.value,
              model: modelInput.value,
              title: titleInput.value,
              folder: picker.folder(),
              unrestricted: unrestrictedInput.checked,
              allowUnrestricted: workspaces.allowUnrestricted,
            }),
          );
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
    status,
    h('div', { class: 'form-actions' }, createButton),
  );
  replaceChildren(main, heading, form);
  heading.focus();
}
