/**
 * A test run that starts its PostgreSQL cluster and then hangs until killed, standing for a run that
 * dies without stopping it: prints the cluster's URL on one line once it is up.
 */
import { startThrowawayPostgres } from '../../helpers/throwaway-postgres.ts';

const postgres = await startThrowawayPostgres();
console.log(postgres.url);
// Stay alive, as a run in the middle of its tests does, until the test kills this process.
setInterval(() => {}, 1 << 30); // fixture: a test run in the middle of its tests
