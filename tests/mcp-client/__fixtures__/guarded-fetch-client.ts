// Fetches one URL through the guarded fetch and prints what happened as one JSON line. The HTTPS tests
// run it as a child process so it can be started with NODE_EXTRA_CA_CERTS, the standard way to make a
// process trust one more certificate authority: the guarded fetch itself keeps full verification.
import { createGuardedFetch } from '../../../src/mcp-client/guarded-fetch.ts';
import { ToolError } from '../../../src/tools/errors.ts';

const [url = '', allowPrivate = '0'] = process.argv.slice(2);
const guarded = createGuardedFetch({ allowPrivate: allowPrivate === '1' });
try {
  const response = await guarded(url, { method: 'POST', body: 'ping' });
  console.log(JSON.stringify({ status: response.status, body: await response.text() }));
} catch (error) {
  console.log(
    JSON.stringify(
      ToolError.isInstance(error)
        ? { classification: error.classification, message: error.message }
        : { error: (error as Error).message },
    ),
  );
}
