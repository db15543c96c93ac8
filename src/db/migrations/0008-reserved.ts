/**
 * Placeholder for migration 8, which another branch ships. It changes nothing; it exists only so the
 * numbering stays contiguous on this branch. Replaced by the real migration 8 when the branches meet.
 */
import type { Migration } from './migration.ts';

export const reserved8Migration: Migration = { version: 8, name: 'reserved', sqlite: [], postgres: [] };
