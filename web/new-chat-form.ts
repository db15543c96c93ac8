/**
 * The new-chat form: provider (from `GET /api/providers`; unavailable ones disabled with the reason),
 * model, title, working directory and the restricted toggle (on by default: security by default).
 */
import type { ProviderSummary } from './api-client.ts';
import type { ChatPageOptions } from './chat-page-options.ts';
import { h, replaceChildren, uniqueId } from './dom.ts';

export async function renderNewChatForm(main: HTMLElement, options: ChatPageOptions): Promise<void> {
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
