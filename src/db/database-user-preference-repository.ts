/**
 * `UserPreferenceRepository` on the database (`user_preferences`, migration 9): one row per user,
 * written with an upsert so two tabs saving at once leave one row with the last write.
 */
import type { SQL } from 'bun';
import type { ChatModelPreference, UserPreferenceRepository } from '../users/user-preferences.ts';

interface PreferenceRow {
  chat_provider: string | null;
  chat_model: string | null;
  updated_at: string;
}

export class DatabaseUserPreferenceRepository implements UserPreferenceRepository {
  readonly #sql: SQL;

  constructor(database: { readonly sql: SQL }) {
    this.#sql = database.sql;
  }

  async getChatModel(userId: string): Promise<ChatModelPreference | undefined> {
    const rows: PreferenceRow[] = await this.#sql`SELECT chat_provider, chat_model, updated_at
      FROM user_preferences WHERE user_id = ${userId}`;
    const row = rows[0];
    if (!row || row.chat_provider === null || row.chat_model === null) return undefined;
    return { provider: row.chat_provider, model: row.chat_model, updatedAt: row.updated_at };
  }

  async putChatModel(userId: string, preference: ChatModelPreference): Promise<void> {
    await this.#sql`INSERT INTO user_preferences (user_id, chat_provider, chat_model, updated_at)
      VALUES (${userId}, ${preference.provider}, ${preference.model}, ${preference.updatedAt})
      ON CONFLICT (user_id) DO UPDATE SET chat_provider = excluded.chat_provider,
        chat_model = excluded.chat_model, updated_at = excluded.updated_at`;
  }
}
