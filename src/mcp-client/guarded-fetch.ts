/**
 * The `fetch` the MCP SDK's Streamable HTTP transport uses for external servers. Every connection it
 * opens is checked against the address check (judge-address.ts) on the address actually connected:
 * names are resolved by its own lookup, which hands the socket only addresses the policy allows, and
 * the connected socket's remote address is checked once more before a byte is sent. No connection is
 * reused, so no request rides on a socket opened under another name. Redirects are followed here
 * (or returned, for `redirect: 'manual'`) hop by hop, each hop checked the same way, at most
 * {@link MAX_REDIRECTS}. A response from a Mango server's own `/mcp` (it carries `Mango-MCP-Server`)
 * is refused: Mango's tools are already Mango's, and a loop back into it must not become a tool.
 */
import { lookup as dnsLookup } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import { ToolError } from '../tools/errors.ts';
import { type AddressVerdict, judgeAddress } from './judge-address.ts';

export const MAX_REDIRECTS = 5;
/** The header Mango's own `/mcp` sets on every response, by which a loop back into Mango is seen. */
export const SELF_MARK_HEADER = 'mango-mcp-server';

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface GuardedFetchOptions {
  /** `MANGO_MCP_ALLOW_PRIVATE=1`: loopback, link-local and private addresses are allowed too. */
  allowPrivate: boolean;
  /** The policy; injectable so a test can treat one loopback address as public. */
  judge?: (address: string) => AddressVerdict;
}

/** Raised for a connection the policy refuses: `permission_denied`, naming the address and why. */
export function refusedConnection(url: URL, address: string, reason: string): ToolError {
  return new ToolError(
    'permission_denied',
    `Refused to connect to ${url.origin}: it resolves to ${address}, ${reason}. External MCP servers may ` +
      'not reach loopback, link-local or private addresses unless the operator sets MANGO_MCP_ALLOW_PRIVATE=1.',
  );
}

function requestHeaders(init: RequestInit | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, key) => {
    headers[key] = value;
  });
  return headers;
}

function requestBody(init: RequestInit | undefined): string | Uint8Array | undefined {
  const body = init?.body;
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  throw new TypeError('The guarded fetch sends string or byte bodies only.');
}

export function createGuardedFetch(options: GuardedFetchOptions): FetchLike {
  const judge = options.judge ?? judgeAddress;
  const verdict: Verdict = (address) => (options.allowPrivate ? { allowed: true } : judge(address));

  return async (input, init) => {
    let url = new URL(input instanceof URL ? input.href : input);
    let current = init;
    for (let hop = 0; ; hop += 1) {
      const response = await once(url, current, verdict);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || location === null) return response;
      if (current?.redirect === 'manual') return response;
      await response.body?.cancel();
      if (current?.redirect === 'error')
        throw new TypeError(`${url.origin} redirected, and redirects are refused.`);
      if (hop >= MAX_REDIRECTS) {
        throw new ToolError('execution_error', `${url.origin} redirected more than ${MAX_REDIRECTS} times.`);
      }
      const next = new URL(location, url);
      current = redirectedRequest(url, next, response.status, current);
      url = next;
    }
  };
}

/** Whether a connection to an address is allowed, with the reason when it is not. */
type Verdict = (address: string) => AddressVerdict;

/** A lookup that hands the socket only the addresses the policy allows, and fails naming the first refused. */
function guardedLookup(url: URL, verdict: Verdict): LookupFunction {
  return (hostname, _lookupOptions, callback) => {
    dnsLookup(hostname, { all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const allowed = addresses.filter((entry) => verdict(entry.address).allowed);
      if (allowed.length === 0) {
        const first = addresses[0];
        const reason = first ? verdict(first.address) : { allowed: false as const, reason: 'no address' };
        return callback(
          refusedConnection(url, first?.address ?? hostname, reason.allowed ? '' : reason.reason),
          '',
          0,
        );
      }
      callback(null, allowed);
    });
  };
}

/** Why a request to `url` is refused before any connection: its scheme, a refused literal address, an abort. */
function refusalBeforeConnecting(
  url: URL,
  host: string,
  verdict: Verdict,
  signal: AbortSignal | undefined,
): unknown {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return new ToolError('execution_error', `An external MCP server must be http(s), got ${url.protocol}`);
  }
  if (isIP(host) !== 0) {
    const literal = verdict(host);
    if (!literal.allowed) return refusedConnection(url, host, literal.reason);
  }
  if (signal?.aborted) return signal.reason;
  return undefined;
}

/** One request, no redirect followed: its connection checked by the policy, the answer as a `Response`. */
function once(url: URL, init: RequestInit | undefined, verdict: Verdict): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const signal = init?.signal ?? undefined;
    const refusal = refusalBeforeConnecting(url, host, verdict, signal);
    if (refusal !== undefined) {
      reject(refusal);
      return;
    }
    const module = url.protocol === 'https:' ? https : http;
    const request = module.request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: init?.method ?? 'GET',
        headers: requestHeaders(init),
        agent: false,
        lookup: guardedLookup(url, verdict),
      },
      (response) => {
        // The abort stays wired until the body is done: an event stream that never ends (a GET
        // stream held open by the server) must still close, socket and all, when the caller aborts.
        received = response;
        response.once('close', () => signal?.removeEventListener('abort', onAbort));
        if (response.headers[SELF_MARK_HEADER] !== undefined) {
          response.destroy();
          reject(
            new ToolError(
              'permission_denied',
              `Refused ${url.origin}: it is a Mango server's own /mcp endpoint, and Mango does not call itself as an external MCP server.`,
            ),
          );
          return;
        }
        resolve(responseFrom(response, init));
      },
    );
    let received: IncomingMessage | undefined;
    const onAbort = () => {
      const reason = signal?.reason instanceof Error ? signal.reason : new Error('aborted');
      // The body's reader sees the caller's reason, not the socket's "aborted".
      received?.destroy(reason);
      request.destroy(reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('socket', (socket: Socket) => {
      socket.once('connect', () => {
        const remote = socket.remoteAddress ?? '';
        const connected = verdict(remote);
        if (!connected.allowed) request.destroy(refusedConnection(url, remote, connected.reason));
      });
    });
    request.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    const body = requestBody(init);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

/** The `Response` of a received answer: every header kept, no body for 204, 304 and HEAD. */
function responseFrom(response: IncomingMessage, init: RequestInit | undefined): Response {
  const headers = new Headers();
  for (const [key, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(key, item);
  }
  const status = response.statusCode ?? 502;
  const empty = status === 204 || status === 304 || init?.method === 'HEAD';
  if (empty) response.resume();
  const body = empty ? null : (Readable.toWeb(response) as unknown as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: response.statusMessage, headers });
}

/**
 * The request of the next hop: 303 (and 301 or 302 after a POST) turns it into a body-less GET, and
 * the authorization header is dropped when the hop leaves the origin.
 */
function redirectedRequest(
  from: URL,
  next: URL,
  status: number,
  current: RequestInit | undefined,
): RequestInit {
  const changesMethod = status === 303 || ((status === 301 || status === 302) && current?.method === 'POST');
  // A header meant for one origin (a bearer token) is not handed to another.
  const headers = new Headers(current?.headers);
  if (next.origin !== from.origin) headers.delete('authorization');
  return changesMethod ? { ...current, method: 'GET', body: undefined, headers } : { ...current, headers };
}
