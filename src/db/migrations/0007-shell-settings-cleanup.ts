/**
 * Migration 7: the shell tools' `allowedEnvVars` setting is gone (a command's environment is an
 * allowlist now, extended only by the operator's `MANGO_SHELL_PASS_ENV`), so its saved values are
 * removed from `user_tool_settings.parameters_json` of bash, zsh and powershell. Every other saved
 * value stays as it was. A row whose text is not a JSON object is left alone: the settings resolver
 * already reads such a row as defaults, and a migration must not fail on it.
 */
import type { Migration } from './migration.ts';

const SHELL_TOOLS = "('bash', 'zsh', 'powershell')";

export const shellSettingsCleanupMigration: Migration = {
  version: 7,
  name: 'shell-settings-cleanup',
  sqlite: [
    `UPDATE user_tool_settings
      SET parameters_json = json_remove(parameters_json, '$.allowedEnvVars')
      WHERE tool_name IN ${SHELL_TOOLS}
        AND json_valid(parameters_json)
        AND json_type(parameters_json) = 'object'
        AND json_type(parameters_json, '$.allowedEnvVars') IS NOT NULL`,
  ],
  postgres: [
    // PostgreSQL 15 has no IS JSON: a session-local function turns unparsable text into NULL.
    `CREATE OR REPLACE FUNCTION pg_temp.mango_settings_json(value TEXT) RETURNS JSONB
      LANGUAGE plpgsql AS $$
      BEGIN
        RETURN value::jsonb;
      EXCEPTION WHEN others THEN
        RETURN NULL;
      END
      $$`,
    `UPDATE user_tool_settings
      SET parameters_json = (pg_temp.mango_settings_json(parameters_json) - 'allowedEnvVars')::text
      WHERE tool_name IN ${SHELL_TOOLS}
        AND jsonb_typeof(pg_temp.mango_settings_json(parameters_json)) = 'object'
        AND (pg_temp.mango_settings_json(parameters_json) -> 'allowedEnvVars') IS NOT NULL`,
    'DROP FUNCTION pg_temp.mango_settings_json(TEXT)',
  ],
};
