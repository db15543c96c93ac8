/**
 * Every schema migration, in order. Append new ones at the end (see `migration.ts`).
 */
import { initialMigration } from './0001-initial.ts';
import type { Migration } from './migration.ts';

export type { Migration } from './migration.ts';

export const MIGRATIONS: readonly Migration[] = [initialMigration];
