/**
 * Migration 4: `file_observations.covered_ranges` (the freshness ledger records which lines the
 * reads covered, docs/tools.md). Reads taken out of order or concurrently cover lines past the
 * contiguous prefix `covered_through`; they are kept as JSON text `[[first, last], …]` so that reads which
 * together cover a file count as a complete observation. Nullable: rows written before it mean "prefix
 * only", which is what they recorded.
 */
import type { Migration } from './migration.ts';

const STATEMENT = 'ALTER TABLE file_observations ADD COLUMN covered_ranges TEXT';

export const observationRangesMigration: Migration = {
  version: 4,
  name: 'observation-ranges',
  sqlite: [STATEMENT],
  postgres: [STATEMENT],
};
