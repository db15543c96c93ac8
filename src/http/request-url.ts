/**
 * Request URLs the router can read. Elysia finds the path of a URL by searching for `/` from a fixed
 * offset (11, the length of `https://a.b`), so with a `Host` of three characters or fewer
 * (`http://api/api/x`) it starts inside the path and every route answers 404. `normalizeRequestUrl`
 * gives such a request a URL with the same path and query under `http://localhost`; every other request
 * passes through untouched (the same object).
 *
 * After normalization the URL's authority no longer tells which host the client asked for: the `Host`
 * header does, and it is what host validation reads (see `allowed-hosts.ts`).
 */

/** The offset Elysia's router starts its search for the path at. */
const ROUTER_PATH_SEARCH_OFFSET = 11;

/** Index of the `/` that starts the path of an absolute URL, or -1 when it has none. */
function pathStart(url: string): number {
  const authorityStart = url.indexOf('//');
  return authorityStart < 0 ? -1 : url.indexOf('/', authorityStart + 2);
}

/** `request` itself when the router reads its path right, else the same request under a routable URL. */
export function normalizeRequestUrl(request: Request): Request {
  const url = request.url;
  const start = pathStart(url);
  if (start >= ROUTER_PATH_SEARCH_OFFSET) return request;
  const pathAndQuery = start < 0 ? '/' : url.slice(start);
  // Same method, headers, body stream and abort signal: only the URL differs.
  return new Request(`http://localhost${pathAndQuery}`, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    body: request.body,
  });
}
