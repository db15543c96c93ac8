/**
 * Migration 2: the `images` table of `generate_image` (issue 8). The statements live in `images.ts`.
 */
import { IMAGES_MIGRATION_STATEMENTS } from './images.ts';
import type { Migration } from './migration.ts';

export const imagesMigration: Migration = { version: 2, name: 'images', ...IMAGES_MIGRATION_STATEMENTS };
