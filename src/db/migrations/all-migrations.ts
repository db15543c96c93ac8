/**
 * Every schema migration, in order. Append new ones at the end (see `migration.ts`).
 */
import { initialMigration } from './0001-initial.ts';
import { imagesMigration } from './0002-images.ts';
import { chatsMigration } from './0003-chats.ts';
import { observationRangesMigration } from './0004-observation-ranges.ts';
import { chatTurnLeasesMigration } from './0005-chat-turn-leases.ts';
import { workspacesMigration } from './0006-workspaces.ts';
import { shellSettingsCleanupMigration } from './0007-shell-settings-cleanup.ts';
import { turnRecordsMigration } from './0008-turn-records.ts';
import { userPreferencesMigration } from './0009-user-preferences.ts';
import { toolApprovalsMigration } from './0010-tool-approvals.ts';
import { userMcpServersMigration } from './0011-user-mcp-servers.ts';
import { sandboxIdsMigration } from './0012-sandbox-ids.ts';
import { userDiskQuotasMigration } from './0013-user-disk-quotas.ts';
import { chatSearchAndActivityMigration } from './0014-chat-search-and-activity.ts';
import { instancesAndSecretProbeMigration } from './0015-instances-and-secret-probe.ts';
import { messageRewindsMigration } from './0016-message-rewinds.ts';
import type { Migration } from './migration.ts';

export type { Migration } from './migration.ts';

export const MIGRATIONS: readonly Migration[] = [
  initialMigration,
  imagesMigration,
  chatsMigration,
  observationRangesMigration,
  chatTurnLeasesMigration,
  workspacesMigration,
  shellSettingsCleanupMigration,
  turnRecordsMigration,
  userPreferencesMigration,
  toolApprovalsMigration,
  userMcpServersMigration,
  sandboxIdsMigration,
  userDiskQuotasMigration,
  chatSearchAndActivityMigration,
  instancesAndSecretProbeMigration,
  messageRewindsMigration,
];
