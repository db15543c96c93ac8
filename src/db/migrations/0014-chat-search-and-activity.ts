/**
 * Migration 14: finding and keeping chats (docs/chats.md, "Finding chats").
 *
 * - `chats.last_activity_at` (ISO-8601 text) is the newest of the chat's creation and its messages'
 *   `created_at`; `chats.activity_seq` grows with every creation and every message of any chat, so two
 *   chats active in the same millisecond still list in the order they were active (the random id is no
 *   tie-break). Both are backfilled from the existing messages, and kept by triggers on `messages`, so
 *   every path that writes a message (a turn's fenced append included) moves its chat to the top.
 * - `chats.pinned_at` and `chats.archived_at`: NULL for every existing chat. A user message clears
 *   `archived_at` (the trigger), so writing in an archived chat brings it back to the list.
 * - `chat_search_entries`: one row per searchable text, a chat's title (`role` 'title', no message) and
 *   each user or assistant text message (its first `MAX_INDEXED` characters). Tool calls and results are
 *   not indexed (docs/decisions/2026-12-02-chat-search.md). Backfilled from the
 *   existing chats and messages; triggers on `chats` and `messages` keep it, deletes included.
 * - The full-text index over `body`: on SQLite an FTS5 table with `chat_search_entries` as its external
 *   content (rowid = the entry's INTEGER PRIMARY KEY, which VACUUM keeps), tokenized by `unicode61`
 *   without removing diacritics; on PostgreSQL a stored `tsvector` (configuration `simple`, ASCII
 *   punctuation read as spaces) under a GIN index. Both read words the same way: runs of letters and
 *   digits, compared case-insensitively, no stemming.
 */
import type { Migration } from './migration.ts';

/** Characters of one message indexed (and shown in snippets); a longer message is found by its start. */
const MAX_INDEXED = 100_000;

const SQLITE: readonly string[] = [
  "ALTER TABLE chats ADD COLUMN last_activity_at TEXT NOT NULL DEFAULT ''",
  'ALTER TABLE chats ADD COLUMN activity_seq INTEGER NOT NULL DEFAULT 0',
  'ALTER TABLE chats ADD COLUMN pinned_at TEXT',
  'ALTER TABLE chats ADD COLUMN archived_at TEXT',
  `UPDATE chats SET last_activity_at = max(created_at,
    COALESCE((SELECT MAX(created_at) FROM messages WHERE chat_id = chats.id), created_at))`,
  `UPDATE chats SET activity_seq = ranked.n FROM
    (SELECT id, ROW_NUMBER() OVER (ORDER BY last_activity_at, created_at, id) AS n FROM chats) AS ranked
    WHERE ranked.id = chats.id`,
  'CREATE INDEX chats_activity_seq ON chats (activity_seq)',
  'CREATE INDEX chats_user_activity ON chats (user_id, last_activity_at, activity_seq)',
  `CREATE TABLE chat_search_entries (
    id INTEGER PRIMARY KEY,
    chat_id TEXT NOT NULL,
    message_id TEXT UNIQUE,
    seq INTEGER,
    role TEXT NOT NULL,
    body TEXT NOT NULL
  )`,
  'CREATE INDEX chat_search_entries_chat ON chat_search_entries (chat_id)',
  `CREATE VIRTUAL TABLE chat_search_index USING fts5(body, content='chat_search_entries',
    content_rowid='id', tokenize='unicode61 remove_diacritics 0')`,
  `INSERT INTO chat_search_entries (chat_id, message_id, seq, role, body)
    SELECT id, NULL, NULL, 'title', title FROM chats`,
  `INSERT INTO chat_search_entries (chat_id, message_id, seq, role, body)
    SELECT chat_id, id, seq, role, substr(json_extract(content_json, '$.text'), 1, ${MAX_INDEXED})
    FROM messages WHERE role IN ('user', 'assistant')
      AND json_extract(content_json, '$.type') IN ('user_text', 'assistant_text')`,
  "INSERT INTO chat_search_index (chat_search_index) VALUES ('rebuild')",
  `CREATE TRIGGER chat_search_entries_insert AFTER INSERT ON chat_search_entries BEGIN
    INSERT INTO chat_search_index (rowid, body) VALUES (new.id, new.body);
  END`,
  `CREATE TRIGGER chat_search_entries_delete AFTER DELETE ON chat_search_entries BEGIN
    INSERT INTO chat_search_index (chat_search_index, rowid, body) VALUES ('delete', old.id, old.body);
  END`,
  `CREATE TRIGGER chat_search_entries_update AFTER UPDATE ON chat_search_entries BEGIN
    INSERT INTO chat_search_index (chat_search_index, rowid, body) VALUES ('delete', old.id, old.body);
    INSERT INTO chat_search_index (rowid, body) VALUES (new.id, new.body);
  END`,
  `CREATE TRIGGER chats_insert_search AFTER INSERT ON chats BEGIN
    INSERT INTO chat_search_entries (chat_id, role, body) VALUES (new.id, 'title', new.title);
    UPDATE chats SET activity_seq = (SELECT MAX(activity_seq) FROM chats) + 1,
      last_activity_at = max(new.last_activity_at, new.created_at)
      WHERE id = new.id;
  END`,
  `CREATE TRIGGER chats_title_search AFTER UPDATE OF title ON chats WHEN old.title IS NOT new.title BEGIN
    UPDATE chat_search_entries SET body = new.title WHERE chat_id = new.id AND message_id IS NULL;
  END`,
  `CREATE TRIGGER chats_delete_search AFTER DELETE ON chats BEGIN
    DELETE FROM chat_search_entries WHERE chat_id = old.id;
  END`,
  `CREATE TRIGGER messages_insert_activity AFTER INSERT ON messages BEGIN
    INSERT INTO chat_search_entries (chat_id, message_id, seq, role, body)
      SELECT new.chat_id, new.id, new.seq, new.role,
        substr(json_extract(new.content_json, '$.text'), 1, ${MAX_INDEXED})
      WHERE new.role IN ('user', 'assistant')
        AND json_extract(new.content_json, '$.type') IN ('user_text', 'assistant_text');
    UPDATE chats SET last_activity_at = max(last_activity_at, new.created_at),
      activity_seq = (SELECT MAX(activity_seq) FROM chats) + 1,
      archived_at = CASE WHEN new.role = 'user' THEN NULL ELSE archived_at END
      WHERE id = new.chat_id;
  END`,
  `CREATE TRIGGER messages_delete_search AFTER DELETE ON messages BEGIN
    DELETE FROM chat_search_entries WHERE message_id = old.id;
  END`,
];

const POSTGRES: readonly string[] = [
  'CREATE SEQUENCE chat_activity_seq',
  'ALTER TABLE chats ADD COLUMN last_activity_at TEXT',
  'ALTER TABLE chats ADD COLUMN activity_seq BIGINT',
  'ALTER TABLE chats ADD COLUMN pinned_at TEXT',
  'ALTER TABLE chats ADD COLUMN archived_at TEXT',
  `UPDATE chats SET last_activity_at = GREATEST(created_at,
    COALESCE((SELECT MAX(created_at) FROM messages WHERE chat_id = chats.id), created_at))`,
  `UPDATE chats SET activity_seq = ranked.n FROM
    (SELECT id, ROW_NUMBER() OVER (ORDER BY last_activity_at, created_at, id) AS n FROM chats) AS ranked
    WHERE ranked.id = chats.id`,
  "SELECT setval('chat_activity_seq', COALESCE((SELECT MAX(activity_seq) FROM chats), 0) + 1, false)",
  'ALTER TABLE chats ALTER COLUMN last_activity_at SET NOT NULL',
  "ALTER TABLE chats ALTER COLUMN activity_seq SET DEFAULT nextval('chat_activity_seq')",
  'ALTER TABLE chats ALTER COLUMN activity_seq SET NOT NULL',
  'CREATE INDEX chats_user_activity ON chats (user_id, last_activity_at, activity_seq)',
  `CREATE TABLE chat_search_entries (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    message_id TEXT UNIQUE REFERENCES messages(id) ON DELETE CASCADE,
    seq INTEGER,
    role TEXT NOT NULL,
    body TEXT NOT NULL,
    search_vector tsvector GENERATED ALWAYS AS
      (to_tsvector('simple', regexp_replace(body, '[[:punct:]]+', ' ', 'g'))) STORED
  )`,
  'CREATE INDEX chat_search_entries_chat ON chat_search_entries (chat_id)',
  'CREATE INDEX chat_search_entries_vector ON chat_search_entries USING GIN (search_vector)',
  `INSERT INTO chat_search_entries (chat_id, message_id, seq, role, body)
    SELECT id, NULL, NULL, 'title', title FROM chats`,
  `INSERT INTO chat_search_entries (chat_id, message_id, seq, role, body)
    SELECT chat_id, id, seq, role, left(content_json::json ->> 'text', ${MAX_INDEXED})
    FROM messages WHERE role IN ('user', 'assistant')
      AND content_json::json ->> 'type' IN ('user_text', 'assistant_text')`,
  `CREATE FUNCTION chats_insert_search() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO chat_search_entries (chat_id, role, body) VALUES (NEW.id, 'title', NEW.title);
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER chats_insert_search AFTER INSERT ON chats
    FOR EACH ROW EXECUTE FUNCTION chats_insert_search()`,
  `CREATE FUNCTION chats_title_search() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE chat_search_entries SET body = NEW.title WHERE chat_id = NEW.id AND message_id IS NULL;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER chats_title_search AFTER UPDATE OF title ON chats
    FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title) EXECUTE FUNCTION chats_title_search()`,
  `CREATE FUNCTION messages_insert_activity() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.role IN ('user', 'assistant') THEN
      IF NEW.content_json::json ->> 'type' IN ('user_text', 'assistant_text') THEN
        INSERT INTO chat_search_entries (chat_id, message_id, seq, role, body)
          VALUES (NEW.chat_id, NEW.id, NEW.seq, NEW.role,
            left(NEW.content_json::json ->> 'text', ${MAX_INDEXED}));
      END IF;
    END IF;
    UPDATE chats SET last_activity_at = GREATEST(last_activity_at, NEW.created_at),
      activity_seq = nextval('chat_activity_seq'),
      archived_at = CASE WHEN NEW.role = 'user' THEN NULL ELSE archived_at END
      WHERE id = NEW.chat_id;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER messages_insert_activity AFTER INSERT ON messages
    FOR EACH ROW EXECUTE FUNCTION messages_insert_activity()`,
];

export const chatSearchAndActivityMigration: Migration = {
  version: 14,
  name: 'chat-search-and-activity',
  sqlite: SQLITE,
  postgres: POSTGRES,
};
