/**
 * The open chat's system prompt, seen and edited from its header: the "System prompt" button
 * (`aria-expanded`) opens a panel under the header with the prompt in a text area, focused. Save (or
 * Ctrl+Enter / ⌘+Enter in the text area) sends it (`PATCH /api/chats/:id {systemPrompt}`; blank removes
 * it), closes the panel and says when it applies; a refusal stays on the panel with the server's reason
 * and the text kept. Cancel or Escape close the panel without a change; closing puts focus back on the
 * button. A turn reads the prompt when it starts, so the change applies from the next turn and a
 * running turn keeps its own (docs/decisions/2026-12-02-chat-system-prompt-edits.md).
 */
import type { ApiClient, ChatSummary } from './api-client.ts';
import { autoGrow } from './auto-grow.ts';
import { h, uniqueId } from './dom.ts';

export interface ChatSystemPrompt {
  /**
   * The header's buttons that open and close the panel: one for the title's line (wide windows), one
   * for the model's line (phones); the page's style shows one of them.
   */
  buttons: { wide: HTMLButtonElement; narrow: HTMLButtonElement };
  /** The panel, hidden until the button opens it. */
  panel: HTMLElement;
}

function buttonLabel(prompt: string | null): string {
  return prompt === null ? 'Add system prompt' : 'System prompt';
}

interface PromptPanel {
  form: HTMLFormElement;
  textarea: HTMLTextAreaElement;
  error: HTMLElement;
  save: HTMLButtonElement;
  cancel: HTMLButtonElement;
  hintId: string;
}

/** The panel's elements: the field with its label and hint, Save, Cancel and the refusal's line. */
function createPromptPanel(panelId: string): PromptPanel {
  const fieldId = uniqueId('system-prompt');
  const hintId = uniqueId('system-prompt-hint');
  const textarea = h('textarea', {
    id: fieldId,
    name: 'systemPrompt',
    rows: 4,
    class: 'system-prompt-input',
    'aria-describedby': hintId,
  });
  const error = h('p', { class: 'error-text', role: 'alert', id: uniqueId('system-prompt-error') });
  const save = h('button', { type: 'submit', class: 'button-primary' }, 'Save');
  const cancel = h('button', { type: 'button', class: 'button-quiet' }, 'Cancel');
  const form = h(
    'form',
    { id: panelId, class: 'system-prompt-panel', 'aria-label': 'System prompt', hidden: true },
    h('label', { for: fieldId }, 'System prompt of this chat'),
    h(
      'p',
      { class: 'field-hint', id: hintId },
      'Sent to the model after the server’s own instructions, from the next turn on (a running turn keeps the one it started with). Up to 50,000 characters; empty for none.',
    ),
    textarea,
    h('div', { class: 'system-prompt-actions' }, save, cancel),
    error,
  );
  return { form, textarea, error, save, cancel, hintId };
}

/** The two buttons (`ChatSystemPrompt.buttons`), changed together. */
function createToggles(panelId: string, label: string) {
  const toggle = (where: string) =>
    h(
      'button',
      {
        type: 'button',
        class: `button-quiet system-prompt-button-${where}`,
        'aria-expanded': 'false',
        'aria-controls': panelId,
      },
      label,
    );
  const buttons = { wide: toggle('wide'), narrow: toggle('narrow') };
  return {
    buttons,
    setExpanded(expanded: boolean) {
      for (const each of Object.values(buttons)) each.setAttribute('aria-expanded', String(expanded));
    },
    setLabel(text: string) {
      for (const each of Object.values(buttons)) each.textContent = text;
    },
  };
}

export function createChatSystemPrompt(
  api: ApiClient,
  chat: ChatSummary,
  announce: (text: string) => void,
): ChatSystemPrompt {
  let current = chat.systemPrompt ?? null;
  const panelId = uniqueId('system-prompt-panel');
  const toggles = createToggles(panelId, buttonLabel(current));
  const { buttons } = toggles;
  /** The button that opened the panel, where focus goes back to. */
  let button = buttons.wide;
  const { form: panel, textarea, error, save, cancel, hintId } = createPromptPanel(panelId);
  const grow = autoGrow(textarea);

  const close = () => {
    panel.hidden = true;
    toggles.setExpanded(false);
    button.focus();
  };
  const open = () => {
    textarea.value = current ?? '';
    error.textContent = '';
    textarea.removeAttribute('aria-invalid');
    textarea.setAttribute('aria-describedby', hintId);
    panel.hidden = false;
    toggles.setExpanded(true);
    grow.resize();
    textarea.focus();
  };
  const submit = async () => {
    save.disabled = true;
    error.textContent = '';
    textarea.removeAttribute('aria-invalid');
    try {
      const changed = await api.updateChat(chat.id, { systemPrompt: textarea.value });
      current = changed.systemPrompt ?? null;
      toggles.setLabel(buttonLabel(current));
      close();
      announce(
        current === null
          ? 'System prompt removed. The next turn goes without one.'
          : 'System prompt saved. The next turn uses it.',
      );
    } catch (failure) {
      error.textContent = `Could not save the system prompt: ${(failure as Error).message}`;
      textarea.setAttribute('aria-invalid', 'true');
      textarea.setAttribute('aria-describedby', `${hintId} ${error.id}`);
      textarea.focus();
    } finally {
      save.disabled = false;
    }
  };

  panel.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit();
  });
  for (const each of Object.values(buttons)) {
    each.addEventListener('click', () => {
      button = each;
      if (panel.hidden) open();
      else close();
    });
  }
  cancel.addEventListener('click', close);
  // Escape here closes the panel, not the chat's running turn (the view leaves a used Escape alone).
  panel.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      close();
    } else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && event.target === textarea) {
      event.preventDefault();
      panel.requestSubmit();
    }
  });
  return { buttons, panel };
}
