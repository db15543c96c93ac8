/**
 * Bearer-token authentication, one reusable Elysia plugin. Two parts:
 *
 * - a guard (`onRequest`, before any body is read or parsed) that answers 401 for every request under a
 *   protected prefix (`/api/`, and whatever later features add to `PROTECTED_PATH_PREFIXES`, e.g.
 *   `/mcp`) without a valid token — unauthenticated clients never get their bodies parsed;
 * - `resolve` giving handlers a typed `user`, so a route module only writes `.use(deps.authentication)`
 *   and reads `({ user }) => …`. It also guards routes outside the protected prefixes.
 *
 * The token lookup happens once per request (cached on the Request object). Every 401 carries
 * `WWW-Authenticate: Bearer` (RFC 6750 §3), with `error="invalid_token"` when credentials were sent, so
 * an MCP client reports a bad token rather than starting an OAuth flow the server does not offer.
 */
import { Elysia } from 'elysia';
import { readBearerToken } from '../users/api-token.ts';
import type { User, UserRepository } from '../users/user-repository.ts';
import { HttpError } from './http-errors.ts';

/** Paths (prefixes) whose every request needs a bearer token. */
export const PROTECTED_PATH_PREFIXES: readonly string[] = ['/api/', '/mcp'];

/** Exact paths under a protected prefix that need none: readiness, asked by load balancers. */
export const PUBLIC_API_PATHS: ReadonlySet<string> = new Set(['/api/health']);

function isProtectedPath(url: string): boolean {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const pathname = start < 0 ? '/' : url.slice(start);
  const query = pathname.indexOf('?');
  if (PUBLIC_API_PATHS.has(query < 0 ? pathname : pathname.slice(0, query))) return false;
  return pathname === '/api' || PROTECTED_PATH_PREFIXES.some((prefix) => pathname.startsWith(prefix));
}

/** The `WWW-Authenticate` challenge of a 401: RFC 6750 §3, no error code when nothing was sent. */
export function bearerChallenge(credentialsSent: boolean): string {
  return credentialsSent ? 'Bearer realm="mango", error="invalid_token"' : 'Bearer realm="mango"';
}

export class AuthenticationError extends HttpError {
  constructor(message: string, credentialsSent: boolean) {
    super(401, 'unauthorized', message, { 'www-authenticate': bearerChallenge(credentialsSent) });
    this.name = 'AuthenticationError';
  }
}

/** Resolves a request's user (cached per request) or throws a 401 `AuthenticationError`. */
export function createAuthenticator(users: UserRepository): (request: Request) => Promise<User> {
  const cache = new WeakMap<Request, Promise<User | undefined>>();
  return async (request) => {
    let pending = cache.get(request);
    if (!pending) {
      const token = readBearerToken(request.headers.get('authorization'));
      pending = token === undefined ? Promise.resolve(undefined) : users.findByToken(token);
      cache.set(request, pending);
    }
    const user = await pending;
    if (!user) {
      const credentialsSent = request.headers.has('authorization');
      throw new AuthenticationError(
        credentialsSent
          ? 'The bearer token is not valid (revoked, mistyped, or of another server).'
          : 'Send "Authorization: Bearer <token>"; `mango user add NAME` creates a token.',
        credentialsSent,
      );
    }
    return user;
  };
}

/** The plugin; build it once per app (`createAppDependencies` does) and `.use()` it in route modules. */
export function createAuthenticationPlugin(users: UserRepository) {
  const authenticate = createAuthenticator(users);
  return new Elysia({ name: 'mango-authentication' })
    .onRequest(async ({ request }) => {
      if (isProtectedPath(request.url)) await authenticate(request);
    })
    .resolve({ as: 'scoped' }, async ({ request }) => ({ user: await authenticate(request) }));
}

export type AuthenticationPlugin = ReturnType<typeof createAuthenticationPlugin>;
