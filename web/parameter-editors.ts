/**
 * One editor per tool setting, generated from its `ToolParameterDescriptor` alone, so a new setting needs no
 * web-app change: number inputs with min/max, selects for allowed values, checkboxes, text, and list editors
 * for string lists and path lists. The server stays the validator — the form is `novalidate` and an
 * out-of-range value is sent, so the user sees the server's own 422 message.
 */
import type { PathListEntry, ToolParameterDescriptor } from '../src/contracts/tool-parameter-descriptor.ts';
import { type Child, h, replaceChildren, uniqueId } from './dom.ts';

export interface ParameterEditor {
  readonly descriptor: ToolParameterDescriptor;
  readonly element: HTMLElement;
  /** The value to send; `undefined` leaves the setting out of the request. */
  read(): unknown;
  write(value: unknown): void;
  /** Shows (or clears, with null) an error next to the field and marks it invalid. */
  showError(message: string | null): void;
  focus(): void;
}

/** Builds the editor for one descriptor, showing `value` (the effective setting). */
export function createParameterEditor(descriptor: ToolParameterDescriptor, value: unknown): ParameterEditor {
  switch (descriptor.type) {
    case 'integer':
    case 'number':
      return createNumberEditor(descriptor, value);
    case 'boolean':
      return createBooleanEditor(descriptor, value);
    case 'select':
      return createSelectEditor(descriptor, value);
    case 'string_list':
      return createListEditor(descriptor, value, false);
    case 'path_list':
      return createListEditor(descriptor, value, true);
    default:
      return createTextEditor(descriptor, value);
  }
}

interface FieldParts {
  inputId: string;
  hintId: string;
  errorId: string;
  error: HTMLElement;
}

function fieldParts(descriptor: ToolParameterDescriptor): FieldParts {
  const inputId = uniqueId(`setting-${descriptor.name}`);
  const errorId = `${inputId}-error`;
  return {
    inputId,
    hintId: `${inputId}-hint`,
    errorId,
    error: h('p', { class: 'field-error', id: errorId, role: 'alert', hidden: true }),
  };
}

function rangeHint(descriptor: ToolParameterDescriptor): string {
  const parts: string[] = [];
  if (descriptor.min !== undefined && descriptor.max !== undefined)
    parts.push(`${descriptor.min}–${descriptor.max}`);
  else if (descriptor.min !== undefined) parts.push(`at least ${descriptor.min}`);
  else if (descriptor.max !== undefined) parts.push(`at most ${descriptor.max}`);
  if (descriptor.default !== undefined && typeof descriptor.default !== 'object')
    parts.push(`default ${String(descriptor.default)}`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

function hint(descriptor: ToolParameterDescriptor, parts: FieldParts): HTMLElement {
  return h('p', { class: 'field-hint', id: parts.hintId }, descriptor.description, rangeHint(descriptor));
}

/** Wires error display to an input: text in the error element, aria-invalid on the control. */
function errorDisplay(parts: FieldParts, controls: () => HTMLElement[]) {
  return (message: string | null) => {
    parts.error.textContent = message ?? '';
    parts.error.hidden = message === null;
    for (const control of controls()) {
      if (message === null) control.removeAttribute('aria-invalid');
      else control.setAttribute('aria-invalid', 'true');
    }
  };
}

function describedBy(parts: FieldParts): string {
  return `${parts.hintId} ${parts.errorId}`;
}

/**
 * The editor of one labelled control (number, select, text): label, control, hint and error in one field;
 * it shows `value` at once through `write`.
 */
function labelledEditor(
  descriptor: ToolParameterDescriptor,
  parts: FieldParts,
  control: HTMLInputElement | HTMLSelectElement,
  value: unknown,
  access: Pick<ParameterEditor, 'read' | 'write'>,
): ParameterEditor {
  access.write(value);
  return {
    descriptor,
    element: h(
      'div',
      { class: 'field' },
      h('label', { for: parts.inputId }, descriptor.label),
      control,
      hint(descriptor, parts),
      parts.error,
    ),
    read: access.read,
    write: access.write,
    showError: errorDisplay(parts, () => [control]),
    focus: () => control.focus(),
  };
}

function createNumberEditor(descriptor: ToolParameterDescriptor, value: unknown): ParameterEditor {
  const parts = fieldParts(descriptor);
  const input = h('input', {
    id: parts.inputId,
    name: descriptor.name,
    type: 'number',
    inputmode: descriptor.type === 'integer' ? 'numeric' : 'decimal',
    min: descriptor.min,
    max: descriptor.max,
    step: descriptor.type === 'integer' ? 1 : 'any',
    required: descriptor.required,
    'aria-describedby': describedBy(parts),
  });
  return labelledEditor(descriptor, parts, input, value, {
    read: () => (input.value.trim() === '' ? undefined : Number(input.value)),
    write: (next) => {
      input.value = typeof next === 'number' && Number.isFinite(next) ? String(next) : '';
    },
  });
}

function createBooleanEditor(descriptor: ToolParameterDescriptor, value: unknown): ParameterEditor {
  const parts = fieldParts(descriptor);
  const input = h('input', {
    id: parts.inputId,
    name: descriptor.name,
    type: 'checkbox',
    checked: value === true,
    'aria-describedby': describedBy(parts),
  });
  return {
    descriptor,
    element: h(
      'div',
      { class: 'field field-checkbox' },
      h('div', { class: 'checkbox-row' }, input, h('label', { for: parts.inputId }, descriptor.label)),
      hint(descriptor, parts),
      parts.error,
    ),
    read: () => input.checked,
    write: (next) => {
      input.checked = next === true;
    },
    showError: errorDisplay(parts, () => [input]),
    focus: () => input.focus(),
  };
}

function createSelectEditor(descriptor: ToolParameterDescriptor, value: unknown): ParameterEditor {
  const parts = fieldParts(descriptor);
  const allowed = descriptor.allowedValues ?? [];
  const select = h(
    'select',
    { id: parts.inputId, name: descriptor.name, 'aria-describedby': describedBy(parts) },
    allowed.map((option) => h('option', { value: option }, option)),
  );
  return labelledEditor(descriptor, parts, select, value, {
    read: () => select.value,
    write: (next) => {
      if (typeof next === 'string' && allowed.includes(next)) select.value = next;
    },
  });
}

function createTextEditor(descriptor: ToolParameterDescriptor, value: unknown): ParameterEditor {
  const parts = fieldParts(descriptor);
  const input = h('input', {
    id: parts.inputId,
    name: descriptor.name,
    type: 'text',
    required: descriptor.required,
    'aria-describedby': describedBy(parts),
  });
  return labelledEditor(descriptor, parts, input, value, {
    read: () => (input.value === '' && !descriptor.required ? undefined : input.value),
    write: (next) => {
      input.value = typeof next === 'string' ? next : '';
    },
  });
}

interface ListRow {
  path: string;
  enabled: boolean;
}

function toRows(value: unknown, withEnabled: boolean): ListRow[] {
  if (!Array.isArray(value)) return [];
  return value.map((item) => {
    if (withEnabled && typeof item === 'object' && item !== null) {
      const entry = item as Partial<PathListEntry>;
      return { path: String(entry.path ?? ''), enabled: entry.enabled !== false };
    }
    return { path: String(item), enabled: true };
  });
}

/** What a list editor holds: its non-blank rows, paths trimmed and with their switch for a path list. */
function listValue(rows: readonly ListRow[], withEnabled: boolean): unknown {
  const kept = rows.filter((row) => row.path.trim() !== '');
  return withEnabled
    ? kept.map((row) => ({ path: row.path.trim(), enabled: row.enabled }))
    : kept.map((row) => row.path);
}

/** One row of a list editor: its text input, its "enabled" box for a path list, and its Remove button. */
function listRowItem(
  row: ListRow,
  index: number,
  label: string,
  withEnabled: boolean,
  remove: () => void,
): { item: HTMLElement; text: HTMLInputElement } {
  const position = index + 1;
  const text = h('input', {
    type: 'text',
    value: row.path,
    'aria-label': `${label} entry ${position}`,
    placeholder: withEnabled ? '/absolute/path or ~/path' : '',
  });
  const toggle = withEnabled
    ? h(
        'label',
        { class: 'list-toggle' },
        h('input', {
          type: 'checkbox',
          checked: row.enabled,
          'aria-label': `Entry ${position} enabled`,
        }),
        h('span', { 'aria-hidden': 'true' }, 'on'),
      )
    : null;
  const removeButton = h(
    'button',
    {
      type: 'button',
      class: 'button-quiet',
      'aria-label': `Remove ${label} entry ${position}`,
      onclick: remove,
    },
    'Remove',
  );
  return { item: h('li', { class: 'list-editor-row' }, toggle, text, removeButton), text };
}

/**
 * A list editor: one row per entry with a text input (and, for path lists, an "enabled" checkbox),
 * a remove button per row and an add button. Blank rows are dropped when read.
 */
function createListEditor(
  descriptor: ToolParameterDescriptor,
  value: unknown,
  withEnabled: boolean,
): ParameterEditor {
  const parts = fieldParts(descriptor);
  const legendId = `${parts.inputId}-legend`;
  let rows = toRows(value, withEnabled);
  const list = h('ul', { class: 'list-editor-rows', 'aria-describedby': describedBy(parts) });
  let inputs: HTMLInputElement[] = [];

  const syncFromInputs = () => {
    rows = rows.map((row, index) => {
      const rowElement = list.children[index];
      if (!rowElement) return row;
      const text = rowElement.querySelector<HTMLInputElement>('input[type="text"]');
      const toggle = rowElement.querySelector<HTMLInputElement>('input[type="checkbox"]');
      return { path: text?.value ?? row.path, enabled: toggle ? toggle.checked : row.enabled };
    });
  };

  const render = (focusIndex?: number) => {
    inputs = [];
    const items: Child[] = rows.map((row, index) => {
      const { item, text } = listRowItem(row, index, descriptor.label, withEnabled, () => {
        syncFromInputs();
        rows.splice(index, 1);
        render(Math.min(index, rows.length - 1));
      });
      inputs.push(text);
      return item;
    });
    replaceChildren(list, items);
    if (rows.length === 0) list.appendChild(h('li', { class: 'list-empty' }, 'No entries.'));
    if (focusIndex !== undefined) {
      if (focusIndex >= 0 && inputs[focusIndex]) inputs[focusIndex]!.focus();
      else addButton.focus();
    }
  };

  const addButton = h(
    'button',
    {
      type: 'button',
      class: 'button-secondary',
      onclick: () => {
        syncFromInputs();
        rows.push({ path: '', enabled: true });
        render(rows.length - 1);
      },
    },
    `Add ${withEnabled ? 'path' : 'entry'}`,
  );
  render();

  return {
    descriptor,
    element: h(
      'fieldset',
      { class: 'field field-list', 'aria-describedby': describedBy(parts) },
      h('legend', { id: legendId }, descriptor.label),
      hint(descriptor, parts),
      list,
      addButton,
      parts.error,
    ),
    read: () => {
      syncFromInputs();
      return listValue(rows, withEnabled);
    },
    write: (next) => {
      rows = toRows(next, withEnabled);
      render();
    },
    showError: errorDisplay(parts, () => inputs),
    focus: () => (inputs[0] ?? addButton).focus(),
  };
}

/** The descriptor defaults, for "Reset to defaults" (descriptors without a default are left out). */
export function defaultParameters(descriptors: readonly ToolParameterDescriptor[]): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const descriptor of descriptors) {
    if (descriptor.default !== undefined) defaults[descriptor.name] = structuredClone(descriptor.default);
  }
  return defaults;
}
