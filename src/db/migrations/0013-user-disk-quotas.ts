/**
 * Migration 13: `users.disk_quota_bytes`, a user's own disk quota in bytes (the size of the ext4 image
 * their personal workspace lives on). NULL, every existing user's value, means the server's default
 * (`MANGO_USER_DISK_BYTES`), so changing the default changes everyone who was never given their own.
 */
import type { Migration } from './migration.ts';

export const userDiskQuotasMigration: Migration = {
  version: 13,
  name: 'user-disk-quotas',
  sqlite: ['ALTER TABLE users ADD COLUMN disk_quota_bytes INTEGER'],
  postgres: ['ALTER TABLE users ADD COLUMN disk_quota_bytes BIGINT'],
};
