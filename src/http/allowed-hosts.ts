/**
 * Which `Host` and `Origin` headers the MCP endpoint answers: the DNS-rebinding defence the MCP
 * Streamable HTTP transport requires. A web page on `http://evil.example` whose name resolves to
 * 127.0.0.1 makes the browser send `Host: evil.example` and `Origin: http://evil.example`; both are
 * refused (403) before anything else runs.
 *
 * - Loopback names (`localhost`, `127.0.0.1`, `[::1]`, any port) are always allowed as hosts, and
 *   `http`/`https` origins on them likewise: a rebinding page can never make a browser send them.
 * - `MANGO_ALLOWED_HOSTS` (comma-separated `name` or `name:port`) and `MANGO_ALLOWED_ORIGINS`
 *   (comma-separated `scheme://host[:port]`) add the names a server bound to another interface is
 *   reached by. A server bound to a non-loopback address with no `MANGO_ALLOWED_HOSTS` answers only
 *   loopback names: it fails closed and the refusal says which variable to set.
 * - A request without `Origin` (every non-browser MCP client) is checked on its `Host` only.
 * - Entries are validated at start: a malformed one stops the server with a message naming it.
 */
import { invalidVariable } from '../config/config-error.ts';
import { type Environment, readVariable } from '../config/environment-variables.ts';

export interface AllowedHosts {
  /** Lower-case `name` (any port) or `name:port` entries, loopback names included. */
  readonly hosts: ReadonlySet<string>;
  /** Lower-case serialized origins (`scheme://host[:port]`, default ports omitted). */
  readonly origins: ReadonlySet<string>;
  /** Whether the server listens on a loopback address only (for the refusal's hint). */
  readonly boundToLoopback: boolean;
}

export const LOOPBACK_HOST_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

function isLoopbackAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/** `name` / `name:port` of a `Host` header value, lower-cased; undefined when it is not one. */
function parseHostEntry(text: string): { name: string; port?: string } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(text.trim());
  if (!match?.[1]) return undefined;
  const name = match[1].toLowerCase();
  return match[2] === undefined ? { name } : { name, port: match[2] };
}

function parseOriginEntry(text: string): string | undefined {
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '') return undefined;
    if (!/^https?:\/\/[^/]+\/?$/i.test(text)) return undefined;
    return url.origin.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Reads the policy from `MANGO_ALLOWED_HOSTS` / `MANGO_ALLOWED_ORIGINS` for a server bound to
 * `boundHost`. @throws ConfigError naming a malformed entry.
 */
export function readAllowedHosts(environment: Environment, boundHost: string): AllowedHosts {
  const hosts = new Set<string>(LOOPBACK_HOST_NAMES);
  for (const entry of readVariable(environment, 'MANGO_ALLOWED_HOSTS')) {
    const parsed = parseHostEntry(entry);
    if (!parsed) {
      throw invalidVariable('MANGO_ALLOWED_HOSTS', 'host names or name:port', entry, { entry: true });
    }
    hosts.add(parsed.port === undefined ? parsed.name : `${parsed.name}:${parsed.port}`);
  }
  const origins = new Set<string>();
  for (const entry of readVariable(environment, 'MANGO_ALLOWED_ORIGINS')) {
    const origin = parseOriginEntry(entry);
    if (origin === undefined) {
      const expected = 'origins like https://chat.example.com';
      throw invalidVariable('MANGO_ALLOWED_ORIGINS', expected, entry, { entry: true });
    }
    origins.add(origin);
  }
  return { hosts, origins, boundToLoopback: isLoopbackAddress(boundHost) };
}

function isAllowedHost(policy: AllowedHosts, value: string): boolean {
  const parsed = parseHostEntry(value);
  if (!parsed) return false;
  if (policy.hosts.has(parsed.name)) return true;
  return parsed.port !== undefined && policy.hosts.has(`${parsed.name}:${parsed.port}`);
}

function isAllowedOrigin(policy: AllowedHosts, value: string): boolean {
  const origin = parseOriginEntry(value);
  if (origin === undefined) return false;
  if (policy.origins.has(origin)) return true;
  const host = new URL(origin).hostname;
  return LOOPBACK_HOST_NAMES.includes(host);
}

export interface HostRefusal {
  code: 'host_not_allowed' | 'origin_not_allowed';
  message: string;
}

/** Why `request` must be refused (for the 403), or undefined when its headers are allowed. */
export function refuseHostOrOrigin(request: Request, policy: AllowedHosts): HostRefusal | undefined {
  // A request built in process has no Host header; over HTTP its URL's host is the header's value.
  const host = request.headers.get('host') ?? new URL(request.url).host;
  if (!isAllowedHost(policy, host)) {
    const hint = policy.boundToLoopback
      ? 'this server answers loopback names (localhost, 127.0.0.1, [::1]) only'
      : 'list the names clients use in MANGO_ALLOWED_HOSTS';
    return { code: 'host_not_allowed', message: `Host ${JSON.stringify(host)} is not allowed: ${hint}.` };
  }
  const origin = request.headers.get('origin');
  if (origin !== null && !isAllowedOrigin(policy, origin)) {
    return {
      code: 'origin_not_allowed',
      message: `Origin ${JSON.stringify(origin)} is not allowed: list trusted web origins in MANGO_ALLOWED_ORIGINS.`,
    };
  }
  return undefined;
}
