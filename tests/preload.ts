/**
 * Preloaded by `bun test` (bunfig.toml) before any test file: the PostgreSQL cluster the run may have
 * started for its tests stops after the last file, once per run rather than once per file.
 */
import { afterAll } from 'bun:test';
import { stopTestPostgres } from './helpers/test-postgres-server.ts';

afterAll(stopTestPostgres, 60_000);
