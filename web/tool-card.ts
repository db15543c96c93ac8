/**
 * One tool on the Tools page: its title and name, an on/off switch, its description and notes, and its
 * settings form. A built-in tool is a full card; a tool of an MCP server is a compact row (title, name,
 * switch) that unfolds to its description and settings, so a server with many tools takes a line each.
 * A tool that declares `confirmBeforeEnable` (the shells: they run any command, which is why they are
 * off by default) carries a warning and asks for confirmation before it is enabled. Focus stays on the
 * switch through a save.
 */
import type { ApiClient, ToolSettingsDescriptor } from './api-client.ts';
import { confirmWithDialog } from './confirm-dialog.ts';
import { h } from './dom.ts';
import { needsEnableConfirmation } from './enable-confirmation.ts';
import { keepingFocus } from './keep-focus.ts';
import { createSettingsForm } from './tool-settings-form.ts';

export interface ToolCardOptions {
  /** The level of the tool's title heading: one below the group it sits in. */
  headingLevel: 3 | 4;
  /** A row that unfolds to the description and settings (an MCP server's tool), not a full card. */
  compact: boolean;
}

export interface ToolCard {
  element: HTMLElement;
  /** The tool as last saved (its `enabled` changes with the switch). */
  current(): ToolSettingsDescriptor;
}

/** An unavailable tool can still be switched off, never on. */
function canToggle(tool: ToolSettingsDescriptor): boolean {
  return tool.canDisable && (tool.available || tool.enabled);
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

interface SwitchParts {
  row: HTMLElement;
  toggle: HTMLInputElement;
}

/** The on/off switch: it saves at once, after the warning for a tool that asks for one. */
function createSwitch(
  state: { tool: ToolSettingsDescriptor },
  api: ApiClient,
  ids: { switchId: string; explanationId: string },
  status: HTMLElement,
  hooks: { onSaved: () => void; focusFallback: () => HTMLElement },
): SwitchParts {
  const { tool } = state;
  const toggle = h('input', {
    id: ids.switchId,
    type: 'checkbox',
    role: 'switch',
    class: 'switch',
    checked: tool.enabled,
    disabled: !canToggle(tool),
    'aria-describedby': tool.canDisable ? undefined : ids.explanationId,
  });
  const switchLabel = h('span', { class: 'switch-state' }, tool.enabled ? 'On' : 'Off');
  toggle.addEventListener('change', async () => {
    const wanted = toggle.checked;
    if (needsEnableConfirmation(state.tool, wanted) && !(await confirmEnable(state.tool))) {
      toggle.checked = false;
      toggle.focus();
      return;
    }
    await keepingFocus(
      toggle,
      async () => {
        toggle.disabled = true;
        status.textContent = 'Saving…';
        try {
          state.tool = await api.updateTool(state.tool.name, { enabled: wanted });
          toggle.checked = state.tool.enabled;
          status.textContent = `${state.tool.title} ${state.tool.enabled ? 'enabled' : 'disabled'}.`;
        } catch (error) {
          toggle.checked = !wanted;
          status.textContent = `Not saved: ${(error as Error).message}`;
        } finally {
          toggle.disabled = !canToggle(state.tool);
          switchLabel.textContent = toggle.checked ? 'On' : 'Off';
          hooks.onSaved();
        }
      },
      hooks.focusFallback,
    );
  });
  const row = h(
    'div',
    { class: 'switch-row' },
    h('label', { for: ids.switchId, class: 'visually-hidden' }, `Enable ${tool.title}`),
    toggle,
    switchLabel,
  );
  return { row, toggle };
}

export function createToolCard(
  initial: ToolSettingsDescriptor,
  api: ApiClient,
  options: ToolCardOptions,
): ToolCard {
  const state = { tool: initial };
  const { tool } = state;
  const titleId = `tool-${tool.name}-title`;
  const explanationId = `tool-${tool.name}-switch-note`;
  const bodyId = `tool-${tool.name}-details`;
  const status = h('p', { class: 'tool-status', role: 'status' });
  const markOff = () => card.classList.toggle('tool-off', !state.tool.enabled);
  // Switched off while unavailable, the switch cannot come back on: focus goes to the tool's title.
  const { row: switchRow } = createSwitch(
    state,
    api,
    { switchId: `tool-${tool.name}-enabled`, explanationId },
    status,
    { onSaved: markOff, focusFallback: () => title.querySelector<HTMLElement>('button') ?? title },
  );
  const settings =
    tool.parameterDescriptors.length > 0
      ? createSettingsForm({
          currentTool: () => state.tool,
          setTool: (next) => {
            state.tool = next;
          },
          api,
          status,
          disclosure: !options.compact,
        })
      : null;
  const details = [
    h('p', { class: 'tool-description' }, tool.description),
    ...toolNotes(tool, explanationId),
  ];

  const heading = `h${options.headingLevel}` as const;
  let title: HTMLElement;
  let body: HTMLElement[];
  if (options.compact) {
    const unfold = h(
      'button',
      { type: 'button', class: 'fold-button', 'aria-expanded': 'false', 'aria-controls': bodyId },
      tool.title,
    );
    const content = h('div', { class: 'tool-row-body', id: bodyId, hidden: true }, details, settings);
    unfold.addEventListener('click', () => {
      const open = unfold.getAttribute('aria-expanded') !== 'true';
      unfold.setAttribute('aria-expanded', String(open));
      content.hidden = !open;
    });
    title = h(heading, { id: titleId }, unfold);
    body = [status, content];
  } else {
    title = h(heading, { id: titleId, tabindex: -1 }, tool.title);
    body = [
      ...details.filter((item): item is HTMLElement => item !== null),
      ...(settings ? [settings] : []),
      status,
    ];
  }

  const card = h(
    'article',
    {
      class: `tool-card${options.compact ? ' tool-row' : ''}${tool.enabled ? '' : ' tool-off'}`,
      'aria-labelledby': titleId,
      'data-tool': tool.name,
    },
    h(
      'div',
      { class: 'tool-header' },
      h('div', { class: 'tool-heading' }, title, h('code', { class: 'tool-name' }, tool.name)),
      switchRow,
    ),
    body,
  );
  return { element: card, current: () => state.tool };
}
