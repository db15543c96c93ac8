/**
 * Migration 16: reruns (regenerate, edit, retry; docs/chats.md, "Reruns"). A rerun replaces the chat from
 * one user message on; the messages and turn records it replaces are kept, marked with the id of the
 * turn that replaced them (`discarded_by`), not deleted:
 *
 * - `seq` and fencing tokens keep growing and never repeat (both are computed from the rows there);
 * - the next turns' history can tell the model which tool calls of the replaced part ran, since their
 *   effects (files written, commands run) were not undone.
 *
 * NULL, every existing row's value, means "in the chat", which is what every row was before.
 */
import type { Migration } from './migration.ts';

const statements = [
  'ALTER TABLE messages ADD COLUMN discarded_by TEXT',
  'ALTER TABLE chat_turns ADD COLUMN discarded_by TEXT',
];

export const messageRewindsMigration: Migration = {
  version: 16,
  name: 'message-rewinds',
  sqlite: statements,
  postgres: statements,
};
