/**
 * The new-chat form: provider (from `GET /api/providers`; unavailable ones disabled with the reason),
 * model (free text, suggested from the models the provider lists), title, system prompt, and where the
 * chat works: one of the user's workspaces and a folder inside it
 * (`workspace-picker.ts`). A chat is confined to that folder; the "all my workspaces" box appears only
 * when the server allows this user unrestricted chats, and is off by default. The provider and model of
 * the user's last new chat are remembered on the server and preselected. A server with no provider at
 * all gets a setup view naming the variables to set instead of a form that cannot succeed.
 */
import type { ChatModelPreference, ProviderSummary, WorkspaceList } from './api-client.ts';
import type { ChatPageOptions } from './chat-page-options.ts';
import { h, replaceChildren, uniqueId } from './dom.ts';
import { PROVIDER_DOCS_PAGE, providerSetupHints } from './model-choice.ts';
import { createModelFields } from './model-fields.ts';
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

  const { providers, providersError, workspaces, workspacesError, remembered } = await loadChoices(
    options.api,
  );
  if (!providersError && !providers.some((provider) => provider.available)) {
    renderProviderSetup(main, heading, providers);
    return;
  }

  const modelFields = createModelFields(options.api, providers, providersError, remembered);
  const textFields = createTextFields();
  const place = createPlaceFields(options.api, workspaces, workspacesError);
  const createButton = h(
    'button',
    { type: 'submit', class: 'button-primary', disabled: !providers.some((provider) => provider.available) },
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
        if (modelFields.model().trim() === '') {
          status.textContent = 'Enter a model name.';
          status.hidden = false;
          modelFields.focusModel();
          return;
        }
        createButton.disabled = true;
        try {
          const chat = await options.api.createChat(
            createChatBodyFrom({
              provider: modelFields.provider(),
              model: modelFields.model(),
              title: textFields.title(),
              folder: place.folder(),
              unrestricted: place.unrestricted(),
              allowUnrestricted: workspaces.allowUnrestricted,
              systemPrompt: textFields.systemPrompt(),
            }),
          );
          // The chat exists either way; a preference that cannot be saved only loses the next preselection.
          await options.api
            .saveChatModelPreference(modelFields.provider(), modelFields.model().trim())
            .catch(() => null);
          options.navigate(`/chats/${encodeURIComponent(chat.id)}`);
        } catch (error) {
          status.textContent = `Could not create the chat: ${(error as Error).message}`;
          status.hidden = false;
          createButton.disabled = false;
        }
      },
    },
    ...modelFields.elements,
    ...textFields.elements,
    ...place.elements,
    status,
    h('div', { class: 'form-actions' }, createButton),
  );
  replaceChildren(main, heading, form);
  heading.focus();
}

/** The chat's optional title and system prompt (at most the server's limit). */
function createTextFields(): { elements: HTMLElement[]; title: () => string; systemPrompt: () => string } {
  const ids = { systemPrompt: uniqueId('system-prompt'), title: uniqueId('title') };
  const titleInput = h('input', { id: ids.title, name: 'title', type: 'text', autocomplete: 'off' });
  const systemPromptInput = h('textarea', {
    id: ids.systemPrompt,
    name: 'systemPrompt',
    rows: 3,
    maxlength: MAX_SYSTEM_PROMPT_CHARACTERS,
    placeholder: 'Instructions the model follows in every turn of this chat',
  });
  return {
    elements: [
      h('div', { class: 'field' }, h('label', { for: ids.title }, 'Title (optional)'), titleInput),
      h(
        'div',
        { class: 'field' },
        h('label', { for: ids.systemPrompt }, 'System prompt (optional)'),
        systemPromptInput,
      ),
    ],
    title: () => titleInput.value,
    systemPrompt: () => systemPromptInput.value,
  };
}

/**
 * Where the chat works: the workspace and folder picker (or why the workspaces could not be loaded: the
 * chat then starts in the personal workspace), and the "all my workspaces" box when the server allows
 * it, off by default.
 */
function createPlaceFields(
  api: ChatPageOptions['api'],
  workspaces: WorkspaceList,
  workspacesError: string | undefined,
): { elements: (HTMLElement | false)[]; folder: () => string | undefined; unrestricted: () => boolean } {
  const ids = { unrestricted: uniqueId('unrestricted'), unrestrictedHint: uniqueId('unrestricted-hint') };
  const picker = createWorkspacePicker(api, workspaces);
  const unrestrictedInput = h('input', {
    id: ids.unrestricted,
    name: 'unrestricted',
    type: 'checkbox',
    'aria-describedby': ids.unrestrictedHint,
  });
  return {
    elements: [
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
    ],
    folder: () => picker.folder(),
    unrestricted: () => unrestrictedInput.checked,
  };
}

/** What the form offers, each list with the reason it could not be loaded. */
interface NewChatChoices {
  providers: ProviderSummary[];
  providersError: string | undefined;
  workspaces: WorkspaceList;
  workspacesError: string | undefined;
  remembered: ChatModelPreference | null;
}

async function loadChoices(api: ChatPageOptions['api']): Promise<NewChatChoices> {
  const choices: NewChatChoices = {
    providers: [],
    providersError: undefined,
    workspaces: { workspaces: [], allowUnrestricted: false },
    workspacesError: undefined,
    remembered: null,
  };
  await Promise.all([
    // A preference that cannot be read only loses the preselection; the form still works.
    api.getChatModelPreference().then(
      (preference) => {
        choices.remembered = preference;
      },
      () => {},
    ),
    api.listProviders().then(
      (listed) => {
        choices.providers = listed;
      },
      (error: Error) => {
        choices.providersError = error.message;
      },
    ),
    api.listWorkspaces().then(
      (listed) => {
        choices.workspaces = listed;
      },
      (error: Error) => {
        choices.workspacesError = error.message;
      },
    ),
  ]);
  return choices;
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
