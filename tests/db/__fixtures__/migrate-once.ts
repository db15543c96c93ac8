// Opens the database named by the environment (MANGO_DATA_DIR / DATABASE_URL), migrates it and prints
// the migrate result as JSON: one "instance" starting up, for the concurrent-migration test.
import { loadConfig } from '../../../src/config.ts';
import { openDatabase } from '../../../src/db/database.ts';
import { migrate } from '../../../src/db/migrate.ts';

const database = await openDatabase(loadConfig(process.env, process.cwd()));
console.log(JSON.stringify(await migrate(database)));
await database.close();
