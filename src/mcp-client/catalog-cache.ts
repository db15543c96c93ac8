/**
 * The tool lists an `ExternalToolSource` keeps, keyed by user, server and (stdio) scope, bounded two
 * ways: at most {@link MAX_SCOPES_PER_SERVER} lists per user and server, and at most a byte budget per
 * user across all their servers and scopes (`MANGO_MCP_MAX_CACHED_BYTES_PER_USER`), so what one user's
 * servers list costs the shared server a fixed amount however many servers and chats they have. Both
 * drop the least recently listed first; a dropped list is listed again when next needed. The list just
 * kept is never the one dropped, so a single list over the budget still serves its turn.
 */
import type { RegisteredTool } from '../tools/types.ts';

export interface Catalog {
  tools: RegisteredTool[];
  /** What the listing cost as JSON: the size counted against the user's budget. */
  bytes: number;
  error?: undefined;
}

export interface CatalogFailure {
  tools?: undefined;
  error: string;
}

/** Lists kept per user and server (one per reachable set a stdio program was listed in). */
export const MAX_SCOPES_PER_SERVER = 16;

/** The key of a user's server; a scope key starts with the same two members. */
export function ownerKeyOf(userId: string, server: string): string {
  return JSON.stringify([userId, server]);
}

/** The user and the server of a catalog or connection key (both kinds start with them). */
export function ownerOf(key: string): [string, string] {
  const [userId, server] = JSON.parse(key) as string[];
  return [userId ?? '', server ?? ''];
}

function costOf(catalog: Catalog | CatalogFailure): number {
  return catalog.tools === undefined ? Buffer.byteLength(catalog.error) : catalog.bytes;
}

export class CatalogCache {
  readonly #maxBytesPerUser: number;
  /** In listing order, the least recent first. */
  readonly #catalogs = new Map<string, Catalog | CatalogFailure>();

  constructor(maxBytesPerUser: number) {
    this.#maxBytesPerUser = maxBytesPerUser;
  }

  get(key: string): Catalog | CatalogFailure | undefined {
    return this.#catalogs.get(key);
  }

  /** Every kept list of one user and server with its key. */
  listsOf(userId: string, server: string): [string, Catalog | CatalogFailure][] {
    return [...this.#catalogs.entries()].filter(([key]) => {
      const [owner, name] = ownerOf(key);
      return owner === userId && name === server;
    });
  }

  /** Bytes kept for one user. */
  bytesOf(userId: string): number {
    let total = 0;
    for (const [key, catalog] of this.#catalogs) if (ownerOf(key)[0] === userId) total += costOf(catalog);
    return total;
  }

  /** Keeps a list as its user's newest, dropping the oldest beyond either bound. */
  keep(key: string, catalog: Catalog | CatalogFailure): void {
    this.#catalogs.delete(key);
    this.#catalogs.set(key, catalog);
    const [userId, server] = ownerOf(key);
    const siblings = this.listsOf(userId, server);
    for (const [oldest] of siblings.slice(0, Math.max(0, siblings.length - MAX_SCOPES_PER_SERVER))) {
      this.#catalogs.delete(oldest);
    }
    let total = this.bytesOf(userId);
    for (const [other, known] of [...this.#catalogs.entries()]) {
      if (total <= this.#maxBytesPerUser) break;
      if (other === key || ownerOf(other)[0] !== userId) continue;
      this.#catalogs.delete(other);
      total -= costOf(known);
    }
  }

  /** Drops every list whose key `matches`. */
  drop(matches: (key: string) => boolean): void {
    for (const key of [...this.#catalogs.keys()]) if (matches(key)) this.#catalogs.delete(key);
  }

  clear(): void {
    this.#catalogs.clear();
  }
}
