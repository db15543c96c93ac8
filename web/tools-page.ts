/**
 * The Tools page: every tool from `GET /api/settings/tools`, grouped by category, with an on/off
 * switch and a settings form generated from `parameterDescriptors` (docs/http-api.md, "Tool settings").
 * Saving sends `PUT /api/settings/tools/:toolName`; a 422 appears next to the field it names.
 * A tool that declares `confirmBeforeEnable` (the shells: they run any command, which is why they are off
 * by default) carries a warning and asks for confirmation before it is enabled.
 * External MCP servers' tools are grouped by server, each with the server's state (connected with its
 * tool count, or failed with its error); a failed server shows even though it has no tools.
 */
import {
  type ApiClient,
  ApiError,
  type ToolSettingsDescriptor,
  type UserMcpServerView,
} from './api-client.ts';
import { confirmWithDialog } from './confirm-dialog.ts';
import { h, replaceChildren } from './dom.ts';
import { needsEnableConfirmation } from './enable-confirmation.ts';
import { createAddServerForm, createRemoveServerButton } from './mcp-server-form.ts';
import { createParameterEditor, defaultParameters, type ParameterEditor } from './parameter-editors.ts';

const CATEGORY_TITLES: Record<string, string> = {
  system: 'System',
  interaction: 'Interaction',
  image: 'Images',
  external: 'External MCP servers',
};

export async function renderToolsPage(container: HTMLElement, api: ApiClient): Promise<void> {
  const heading = h('h1', { tabindex: -1 }, 'Tools');
  const status = h('p', { class: 'page-status', role: 'status' }, 'Loading tools…');
  replaceChildren(
    container,
    heading,
    h(
      'p',
      { class: 'page-intro' },
      'Choose which tools models may call in your chats, and tune their settings.',
    ),
    status,
  );
  heading.focus();
  let tools: ToolSettingsDescriptor[];
  let servers: UserMcpServerView[] | undefined;
  try {
    // A server that keeps no MCP servers for users answers 404 here: then there is nothing to show.
    [tools, servers] = await Promise.all([api.listTools(), api.listMcpServers().catch(() => undefined)]);
  } catch (error) {
    status.textContent = `Could not load tools: ${(error as Error).message}`;
    status.classList.add('error-text');
    return;
  }
  status.textContent = '';
  const categories = [...new Set(tools.map((tool) => tool.category))].sort(
    (left, right) => categoryRank(left) - categoryRank(right),
  );
  if (servers !== undefined && !categories.includes('external')) categories.push('external');
  const rerender = () => void renderToolsPage(container, api);
  for (const category of categories) {
    const headingId = `category-${category}`;
    if (category === 'external') {
      container.appendChild(
        h(
          'section',
          { class: 'tool-category', 'aria-labelledby': headingId },
          h('h2', { id: headingId }, CATEGORY_TITLES.external),
          createServerGroups(
            servers ?? [],
            tools.filter((tool) => tool.category === 'external'),
            api,
            rerender,
          ),
          createAddServerForm(api, rerender),
        ),
      );
      continue;
    }
    container.appendChild(
      h(
        'section',
        { class: 'tool-category', 'aria-labelledby': headingId },
        h('h2', { id: headingId }, CATEGORY_TITLES[category] ?? category),
        tools.filter((tool) => tool.category === category).map((tool) => createToolCard(tool, api)),
      ),
    );
  }
}

/** One group per server: its name, origin and state, then its tools; tools of no listed server last. */
function createServerGroups(
  servers: readonly UserMcpServerView[],
  tools: readonly ToolSettingsDescriptor[],
  api: ApiClient,
  onChanged: () => void,
): HTMLElement[] {
  const claimed = new Set<string>();
  const groups = servers.map((server) => {
    const own = tools.filter((tool) => tool.name.startsWith(`mcp__${server.name}__`));
    for (const tool of own) claimed.add(tool.name);
    const headingId = `mcp-server-${server.name}`;
    const state =
      server.state.status === 'failed'
        ? `Failed: ${server.state.error ?? 'no reason given'}`
        : `Connected · ${server.state.toolCount ?? own.length} tool${(server.state.toolCount ?? own.length) === 1 ? '' : 's'}`;
    return h(
      'section',
      { class: 'mcp-server', 'aria-labelledby': headingId, 'data-mcp-server': server.name },
      h(
        'h3',
        { id: headingId, class: 'mcp-server-title' },
        `${server.name} `,
        h('span', { class: 'mcp-server-origin' }, server.origin === 'user' ? '(yours)' : '(operator)'),
      ),
      h(
        'p',
        { class: server.state.status === 'failed' ? 'mcp-server-state error-text' : 'mcp-server-state' },
        state,
      ),
      server.origin === 'user' ? createRemoveServerButton(api, server.name, onChanged) : null,
      own.map((tool) => createToolCard(tool, api)),
    );
  });
  const rest = tools.filter((tool) => !claimed.has(tool.name)).map((tool) => createToolCard(tool, api));
  return [...groups, ...rest];
}

function categoryRank(category: string): number {
  const order = ['system', 'interaction', 'image', 'external'];
  const index = order.indexOf(category);
  return index === -1 ? order.length : index;
}

/** An unavailable tool can still be switched off, never on. */
function canToggle(tool: ToolSettingsDescriptor): boolean {
  return tool.canDisable && (tool.available || tool.enabled);
}

function createToolCard(initial: ToolSettingsDescriptor, api: ApiClient): HTMLElement {
  let tool = initial;
  const titleId = `tool-${tool.name}-title`;
  const switchId = `tool-${tool.name}-enabled`;
  const explanationId = `tool-${tool.name}-switch-note`;
  const cardStatus = h('p', { class: 'tool-status', role: 'status' });

  const toggle = h('input', {
    id: switchId,
    type: 'checkbox',
    role: 'switch',
    class: 'switch',
    checked: tool.enabled,
    disabled: !canToggle(tool),
    'aria-describedby': tool.canDisable ? undefined : explanationId,
  });
  const switchLabel = h('span', { class: 'switch-state' }, tool.enabled ? 'On' : 'Off');
  toggle.addEventListener('change', async () => {
    const wanted = toggle.checked;
    if (needsEnableConfirmation(tool, wanted)) {
      if (!(await confirmEnable(tool))) {
        toggle.checked = false;
        toggle.focus();
        return;
      }
    }
    toggle.disabled = true;
    cardStatus.textContent = 'Saving…';
    try {
      tool = await api.updateTool(tool.name, { enabled: wanted });
      toggle.checked = tool.enabled;
      cardStatus.textContent = tool.enabled ? `${tool.title} enabled.` : `${tool.title} disabled.`;
    } catch (error) {
      toggle.checked = !wanted;
      cardStatus.textContent = `Not saved: ${(error as Error).message}`;
    } finally {
      toggle.disabled = !canToggle(tool);
      switchLabel.textContent = toggle.checked ? 'On' : 'Off';
      card.classList.toggle('tool-off', !toggle.checked);
    }
  });

  const header = toolCardHeader(tool, { titleId, switchId }, toggle, switchLabel);

  const card = h(
    'article',
    {
      class: `tool-card${tool.enabled ? '' : ' tool-off'}`,
      'aria-labelledby': titleId,
      'data-tool': tool.name,
    },
    header,
    h('p', { class: 'tool-description' }, tool.description),
    ...toolNotes(tool, explanationId),
    tool.parameterDescriptors.length > 0
      ? createSettingsForm(
          () => tool,
          (next) => (tool = next),
          api,
          cardStatus,
        )
      : null,
    cardStatus,
  );
  return card;
}

/** The card's title, the tool's name and its on/off switch. */
function toolCardHeader(
  tool: ToolSettingsDescriptor,
  ids: { titleId: string; switchId: string },
  toggle: HTMLElement,
  switchLabel: HTMLElement,
): HTMLElement {
  return h(
    'div',
    { class: 'tool-header' },
    h(
      'div',
      { class: 'tool-heading' },
      h('h3', { id: ids.titleId }, tool.title),
      h('code', { class: 'tool-name' }, tool.name),
    ),
    h(
      'div',
      { class: 'switch-row' },
      h('label', { for: ids.switchId, class: 'visually-hidden' }, `Enable ${tool.title}`),
      toggle,
      switchLabel,
    ),
  );
}

/** A refused save: on the field it names, focused, else above the buttons. */
function showSaveError(error: unknown, editors: readonly ParameterEditor[], formError: HTMLElement): void {
  const message = (error as Error).message;
  const target =
    error instanceof ApiError && error.parameter
      ? editors.find((editor) => editor.descriptor.name === error.parameter)
      : undefined;
  if (target) {
    target.showError(message);
    target.focus();
  } else {
    formError.textContent = message;
    formError.hidden = false;
  }
}

/** Asks before a tool that runs arbitrary commands is enabled; true when the user said yes. */
function confirmEnable(tool: ToolSettingsDescriptor): Promise<boolean> {
  return confirmWithDialog({
    title: `Enable ${tool.title}?`,
    body: [
      h(
        'p',
        {},
        `A model with ${tool.name} can run any command in this chat's workspaces: read, change or delete the files there `,
        `and start programs. ${tool.notice ?? ''}`,
      ),
      h('p', {}, 'Only enable it for models and chats you trust.'),
    ],
    confirmLabel: `Enable ${tool.name}`,
    danger: true,
  });
}

/** What a card says about its tool beyond the description: always on, unavailable, notices, a warning. */
function toolNotes(tool: ToolSettingsDescriptor, explanationId: string): (HTMLElement | null)[] {
  return [
    tool.canDisable
      ? null
      : h(
          'p',
          { class: 'tool-note', id: explanationId },
          'This tool is always on: the server does not allow disabling it.',
        ),
    tool.available
      ? null
      : h(
          'p',
          { class: 'tool-note tool-unavailable' },
          `Unavailable here: ${tool.unavailableReason ?? 'not configured.'}`,
        ),
    tool.notice ? h('p', { class: 'tool-note' }, tool.notice) : null,
    tool.confirmBeforeEnable
      ? h(
          'p',
          { class: 'tool-warning' },
          h('strong', {}, 'Warning: '),
          'runs arbitrary commands on the server. Off by default; enabling it asks for confirmation.',
        )
      : null,
  ];
}

function createSettingsForm(
  currentTool: () => ToolSettingsDescriptor,
  setTool: (tool: ToolSettingsDescriptor) => void,
  api: ApiClient,
  cardStatus: HTMLElement,
): HTMLElement {
  const tool = currentTool();
  const editors: ParameterEditor[] = tool.parameterDescriptors.map((descriptor) =>
    createParameterEditor(descriptor, tool.parameters[descriptor.name] ?? descriptor.default),
  );
  const formError = h('p', { class: 'field-error', role: 'alert', hidden: true });
  const saveButton = h('button', { type: 'submit', class: 'button-primary' }, 'Save settings');
  const resetButton = h('button', { type: 'button', class: 'button-secondary' }, 'Reset to defaults');

  const clearErrors = () => {
    for (const editor of editors) editor.showError(null);
    formError.hidden = true;
    formError.textContent = '';
  };

  const submit = async (parameters: Record<string, unknown>, successText: string) => {
    clearErrors();
    saveButton.disabled = true;
    resetButton.disabled = true;
    cardStatus.textContent = 'Saving…';
    try {
      const updated = await api.updateTool(currentTool().name, { parameters });
      setTool(updated);
      for (const editor of editors)
        editor.write(updated.parameters[editor.descriptor.name] ?? editor.descriptor.default);
      cardStatus.textContent = successText;
    } catch (error) {
      cardStatus.textContent = 'Not saved.';
      showSaveError(error, editors, formError);
    } finally {
      saveButton.disabled = false;
      resetButton.disabled = false;
    }
  };

  resetButton.addEventListener('click', () => {
    const defaults = defaultParameters(currentTool().parameterDescriptors);
    for (const editor of editors) editor.write(defaults[editor.descriptor.name]);
    void submit(defaults, 'Settings reset to defaults.');
  });

  const form = h(
    'form',
    {
      class: 'tool-settings',
      novalidate: true,
      'aria-label': `${tool.title} settings`,
      onsubmit: (event: Event) => {
        event.preventDefault();
        const parameters: Record<string, unknown> = {};
        for (const editor of editors) {
          const value = editor.read();
          if (value !== undefined) parameters[editor.descriptor.name] = value;
        }
        void submit(parameters, 'Settings saved.');
      },
    },
    editors.map((editor) => editor.element),
    formError,
    h('div', { class: 'form-actions' }, saveButton, resetButton),
  );
  return h(
    'details',
    { class: 'tool-settings-disclosure' },
    h('summary', {}, `Settings (${tool.parameterDescriptors.length})`),
    form,
  );
}
