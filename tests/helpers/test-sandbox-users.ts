/**
 * Per-user sandbox ids for tests that build a sandbox without a database: the real allocator
 * (sandbox-users.ts) over an in-memory store that keeps the repository's contract (an id per owner,
 * the next unused one, never reused). The default range is the server's own, so files a test hands to
 * a user carry the uid that user's commands run as.
 */
import {
  DEFAULT_SANDBOX_ID_RANGE,
  lastOwnerId,
  type SandboxIdRange,
} from '../../src/sandbox/sandbox-id-range.ts';
import {
  type SandboxIdKind,
  SandboxIdRangeFullError,
  type SandboxIdRepository,
  type SandboxIdRow,
} from '../../src/sandbox/sandbox-id-repository.ts';
import { createSandboxUsers, type SandboxUsers } from '../../src/sandbox/sandbox-users.ts';

export class MemorySandboxIdRepository implements SandboxIdRepository {
  readonly rows: SandboxIdRow[] = [];

  async find(kind: SandboxIdKind, owner: string): Promise<number | undefined> {
    return this.rows.find((row) => row.kind === kind && row.owner === owner)?.id;
  }

  async allocate(kind: SandboxIdKind, owner: string, range: SandboxIdRange, now: string): Promise<number> {
    const existing = await this.find(kind, owner);
    if (existing !== undefined) return existing;
    const inRange = this.rows.filter((row) => row.id > range.base && row.id <= lastOwnerId(range));
    const id = Math.max(range.base, ...inRange.map((row) => row.id)) + 1;
    if (id > lastOwnerId(range)) throw new SandboxIdRangeFullError(range);
    this.rows.push({ id, kind, owner, createdAt: now });
    return id;
  }

  async list(): Promise<SandboxIdRow[]> {
    return [...this.rows].sort((left, right) => left.id - right.id);
  }
}

/**
 * A store that gives each owner an id derived from its name, so a test and the fixture processes it
 * starts (each with a sandbox of its own) agree on a user's uid without sharing a database. Tests use
 * a handful of names; two that landed on one id make `allocate` throw, naming both.
 */
export class NamedTestSandboxIdRepository implements SandboxIdRepository {
  readonly #given = new Map<string, number>();

  async find(kind: SandboxIdKind, owner: string): Promise<number | undefined> {
    return this.#given.get(`${kind}:${owner}`);
  }

  async allocate(kind: SandboxIdKind, owner: string, range: SandboxIdRange): Promise<number> {
    const key = `${kind}:${owner}`;
    let hash = 2166136261;
    for (const byte of new TextEncoder().encode(key)) hash = Math.imul(hash ^ byte, 16777619) >>> 0;
    const id = range.base + 1 + (hash % (range.count - 1));
    for (const [other, taken] of this.#given) {
      if (taken === id && other !== key)
        throw new Error(`Test owners ${other} and ${key} share id ${id}; rename one.`);
    }
    this.#given.set(key, id);
    return id;
  }

  async list(): Promise<SandboxIdRow[]> {
    return [...this.#given].map(([key, id]) => {
      const [kind, ...owner] = key.split(':');
      return { id, kind: kind as SandboxIdKind, owner: owner.join(':'), createdAt: '' };
    });
  }
}

/** Users' sandbox identities for tests: a uid per user name, the same in every test process. */
export function testSandboxUsers(
  range: SandboxIdRange = DEFAULT_SANDBOX_ID_RANGE,
  repository: SandboxIdRepository = new NamedTestSandboxIdRepository(),
): SandboxUsers {
  return createSandboxUsers({ repository, range });
}
