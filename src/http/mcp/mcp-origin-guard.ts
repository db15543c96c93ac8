/**
 * The DNS-rebinding guard of `/mcp`: a request whose `Host` or `Origin` the policy refuses
 * (`allowed-hosts.ts`) is answered 403 before authentication, so nothing of a session is read or
 * created for it. Mounted in `createApp` ahead of the authentication plugin; other paths pass.
 */
import { Elysia } from 'elysia';
import { type AllowedHosts, refuseHostOrOrigin } from '../allowed-hosts.ts';
import { HttpError } from '../http-errors.ts';

function isMcpPath(url: string): boolean {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const end = url.indexOf('?', start);
  const pathname = start < 0 ? '/' : url.slice(start, end < 0 ? undefined : end);
  return pathname === '/mcp' || pathname.startsWith('/mcp/');
}

export function createMcpOriginGuard(policy: AllowedHosts) {
  return new Elysia({ name: 'mango-mcp-origin-guard' }).onRequest(({ request }) => {
    if (!isMcpPath(request.url)) return;
    const refusal = refuseHostOrOrigin(request, policy);
    if (refusal) throw new HttpError(403, refusal.code, refusal.message);
  });
}
