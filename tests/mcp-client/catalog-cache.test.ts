import { describe, expect, test } from 'bun:test';
import {
  type Catalog,
  CatalogCache,
  MAX_SCOPES_PER_SERVER,
  ownerKeyOf,
} from '../../src/mcp-client/catalog-cache.ts';

function catalog(bytes: number): Catalog {
  return { tools: [], bytes };
}

function scopeKey(user: string, server: string, scope: string): string {
  return JSON.stringify([user, server, scope, []]);
}

describe('CatalogCache', () => {
  test('at most MAX_SCOPES_PER_SERVER lists per user and server, the least recently listed dropped', () => {
    const cache = new CatalogCache(1_000_000);
    for (let index = 0; index <= MAX_SCOPES_PER_SERVER; index += 1) {
      cache.keep(scopeKey('alice', 'git', `/w${index}`), catalog(10));
    }
    cache.keep(scopeKey('bob', 'git', '/w0'), catalog(10));
    expect(cache.listsOf('alice', 'git').length).toBe(MAX_SCOPES_PER_SERVER);
    expect(cache.get(scopeKey('alice', 'git', '/w0'))).toBeUndefined();
    expect(cache.get(scopeKey('alice', 'git', '/w1'))).toEqual(catalog(10));
    expect(cache.listsOf('bob', 'git').length).toBe(1);
  });

  test("a user's lists across servers stay within the byte budget; other users are untouched", () => {
    const cache = new CatalogCache(250);
    cache.keep(ownerKeyOf('bob', 'a'), catalog(200));
    cache.keep(ownerKeyOf('alice', 'a'), catalog(100));
    cache.keep(ownerKeyOf('alice', 'b'), catalog(100));
    // Listed again: the newest now, so `b` is the oldest.
    cache.keep(ownerKeyOf('alice', 'a'), catalog(100));
    cache.keep(ownerKeyOf('alice', 'c'), catalog(100));
    expect(cache.get(ownerKeyOf('alice', 'b'))).toBeUndefined();
    expect(cache.bytesOf('alice')).toBe(200);
    expect(cache.bytesOf('bob')).toBe(200);
  });

  test('the list just kept stays even when it alone is over the budget', () => {
    const cache = new CatalogCache(100);
    cache.keep(ownerKeyOf('alice', 'a'), catalog(50));
    cache.keep(ownerKeyOf('alice', 'b'), catalog(500));
    expect(cache.get(ownerKeyOf('alice', 'a'))).toBeUndefined();
    expect(cache.get(ownerKeyOf('alice', 'b'))).toEqual(catalog(500));
    expect(cache.bytesOf('alice')).toBe(500);
  });

  test('a failure costs its message', () => {
    const cache = new CatalogCache(1000);
    cache.keep(ownerKeyOf('alice', 'a'), { error: 'unreachable' });
    expect(cache.bytesOf('alice')).toBe(11);
  });
});
