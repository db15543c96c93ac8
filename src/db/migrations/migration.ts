/**
 * The shape of one schema migration. Migrations are an ordered list of numbered modules
 * (`NNNN-name.ts`, listed in `all-migrations.ts`), each with the statements for both dialects. The runner
 * (`../migrate.ts`) applies the pending ones at start, each in its own transaction together with its
 * `schema_migrations` row, so a migration is applied completely or not at all.
 *
 * Adding a feature that needs tables (chats, messages, images…): add the next numbered file here, append
 * it to `MIGRATIONS` in `all-migrations.ts`, never edit a migration that has shipped.
 */
export interface Migration {
  /** Strictly increasing, starting at 1; the number in the file name. */
  version: number;
  /** Short kebab-case name, the rest of the file name. */
  name: string;
  /** Statements run in order on SQLite. */
  sqlite: readonly string[];
  /** Statements run in order on PostgreSQL. */
  postgres: readonly string[];
}
