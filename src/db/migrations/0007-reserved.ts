/**
 * Placeholder for migration 7, which another branch ships. It changes nothing; it exists only so the
 * numbering stays contiguous on this branch. Replaced by the real migration 7 when the branches meet.
 */
import type { Migration } from './migration.ts';

export const reserved7Migration: Migration = { version: 7, name: 'reserved', sqlite: [], postgres: [] };
