/**
 * What a waiting call will do, shown so the user can judge it before saying yes: a shell command
 * exactly as it will run, an edit as the path and a line diff of `oldString` → `newString`, a write as
 * the path and the full content, anything else as its arguments in JSON. Chosen by the arguments'
 * shape (never by the tool's name); every value is inserted as text.
 */
import { h } from './dom.ts';
import { readFileEditArguments, renderEditDiff } from './edit-diff-view.ts';
import { splitLines } from './line-diff.ts';
import { prettyJson } from './tool-result-view.ts';

export type ApprovalArguments = Record<string, unknown>;

/** The call's arguments as an object, or undefined when they are not a JSON object. */
export function parseApprovalArguments(argumentsText: string): ApprovalArguments | undefined {
  try {
    const value: unknown = JSON.parse(argumentsText);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as ApprovalArguments)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The command of a shell call, when the arguments carry one. */
export function commandOf(args: ApprovalArguments | undefined): string | undefined {
  return typeof args?.command === 'string' ? args.command : undefined;
}

/** The prefix "Always allow…" proposes: the command's first two words (the user edits it freely). */
export function suggestedPrefix(command: string): string {
  return command.trim().split(/\s+/).slice(0, 2).join(' ');
}

/** One line to name what a call will do, for the status announcement. */
export function approvalSummary(name: string, args: ApprovalArguments | undefined): string {
  const command = commandOf(args);
  if (command !== undefined) return `${name}: ${command}`;
  if (typeof args?.path === 'string') return `${name}: ${args.path}`;
  return name;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

export function renderApprovalRequest(
  args: ApprovalArguments | undefined,
  argumentsText: string,
): HTMLElement {
  const command = commandOf(args);
  if (args && command !== undefined) {
    const { command: _command, ...rest } = args;
    return h(
      'div',
      { class: 'approval-request' },
      h('p', { class: 'result-caption' }, 'Command'),
      h('pre', { class: 'code-block approval-command' }, h('code', {}, command)),
      Object.keys(rest).length > 0
        ? h('p', { class: 'result-caption' }, `With ${prettyJson(rest).replace(/\s+/g, ' ')}`)
        : null,
    );
  }
  const edit = readFileEditArguments(args);
  if (edit) return renderEditDiff(edit, 'Edit', [], 'approval-request', 'approval-diff');
  if (args && typeof args.path === 'string' && typeof args.content === 'string') {
    const bytes = new TextEncoder().encode(args.content).length;
    return h(
      'div',
      { class: 'approval-request' },
      h(
        'p',
        { class: 'result-caption' },
        'Write ',
        h('code', {}, args.path),
        ` — ${plural(splitLines(args.content).length, 'line')}, ${plural(bytes, 'byte')}`,
      ),
      h('pre', { class: 'code-block approval-content' }, args.content),
    );
  }
  return h(
    'div',
    { class: 'approval-request' },
    h('p', { class: 'result-caption' }, 'Arguments'),
    h('pre', { class: 'code-block' }, args ? prettyJson(args) : argumentsText),
  );
}
