/**
 * A tool's settings form on the Tools page, generated from its `parameterDescriptors`
 * (parameter-editors.ts): Save sends `PUT /api/settings/tools/:toolName`, "Reset to defaults" saves the
 * descriptors' defaults. A refusal appears on the field the server's error names by its key (`parameter`),
 * its message naming the setting by the label the field shows; else above the buttons. Focus stays on
 * the button that was pressed, so a save never sends the keyboard back to the top of the page.
 */
import { type ApiClient, ApiError, type ToolSettingsDescriptor } from './api-client.ts';
import { h } from './dom.ts';
import { keepingFocus } from './keep-focus.ts';
import { createParameterEditor, defaultParameters, type ParameterEditor } from './parameter-editors.ts';

export interface SettingsFormOptions {
  currentTool: () => ToolSettingsDescriptor;
  setTool: (tool: ToolSettingsDescriptor) => void;
  api: ApiClient;
  status: HTMLElement;
  /** In a folded "Settings (N)" disclosure (a full card), or shown as it is (an unfolded compact row). */
  disclosure: boolean;
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

export function createSettingsForm(options: SettingsFormOptions): HTMLElement {
  const { currentTool, setTool, api, status } = options;
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

  const submit = (parameters: Record<string, unknown>, successText: string, pressed: HTMLElement) =>
    keepingFocus(pressed, async () => {
      clearErrors();
      saveButton.disabled = true;
      resetButton.disabled = true;
      status.textContent = 'Saving…';
      let failure: unknown;
      try {
        const updated = await api.updateTool(currentTool().name, { parameters });
        setTool(updated);
        for (const editor of editors)
          editor.write(updated.parameters[editor.descriptor.name] ?? editor.descriptor.default);
        status.textContent = successText;
      } catch (error) {
        status.textContent = 'Not saved.';
        failure = error;
      } finally {
        saveButton.disabled = false;
        resetButton.disabled = false;
      }
      // After the buttons are enabled again, so focus can move to the field at fault.
      if (failure !== undefined) showSaveError(failure, editors, formError);
    });

  resetButton.addEventListener('click', () => {
    const defaults = defaultParameters(currentTool().parameterDescriptors);
    for (const editor of editors) editor.write(defaults[editor.descriptor.name]);
    void submit(defaults, 'Settings reset to defaults.', resetButton);
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
        void submit(parameters, 'Settings saved.', saveButton);
      },
    },
    editors.map((editor) => editor.element),
    formError,
    h('div', { class: 'form-actions' }, saveButton, resetButton),
  );
  if (!options.disclosure) return form;
  return h(
    'details',
    { class: 'tool-settings-disclosure' },
    h('summary', {}, `Settings (${tool.parameterDescriptors.length})`),
    form,
  );
}
