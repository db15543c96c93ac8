import { describe, expect, test } from 'bun:test';
import { MemorySandboxIdRepository, testSandboxUsers } from '../helpers/test-sandbox-users.ts';

const RANGE = { base: 5_000_000, count: 100 };

describe('a user’s sandbox credentials', () => {
  test('their own uid and gid, the sandbox group, and the group of each reached grant that has one', async () => {
    const ids = new MemorySandboxIdRepository();
    const users = testSandboxUsers(RANGE, ids);
    await ids.allocate('grant', '/srv/shared', RANGE, '');
    await ids.allocate('grant', '/srv/other', RANGE, '');
    expect(await users.userFor('alice', ['/work/alice', '/srv/shared'])).toEqual({
      uid: 5_000_003,
      gid: 5_000_003,
      groups: [5_000_000, 5_000_001],
    });
    // Only reached grants: /srv/other is not among this call's roots.
    expect(await users.userFor('alice', ['/work/alice'])).toEqual({
      uid: 5_000_003,
      gid: 5_000_003,
      groups: [5_000_000],
    });
  });

  test('a grant given a group while the server runs is found at the next call', async () => {
    const ids = new MemorySandboxIdRepository();
    const users = testSandboxUsers(RANGE, ids);
    expect((await users.userFor('bob', ['/srv/late'])).groups).toEqual([5_000_000]);
    await ids.allocate('grant', '/srv/late', RANGE, '');
    expect((await users.userFor('bob', ['/srv/late'])).groups).toEqual([5_000_000, 5_000_002]);
  });

  test('an id outside the configured range (the range was moved) is refused, naming the variables', async () => {
    const ids = new MemorySandboxIdRepository();
    await ids.allocate('user', 'carol', { base: 6_000_000, count: 10 }, '');
    await expect(testSandboxUsers(RANGE, ids).userFor('carol', [])).rejects.toThrow(
      'The user carol has id 6000001, outside the sandbox range 5000000–5000099 (MANGO_SANDBOX_UID_BASE, MANGO_SANDBOX_UID_COUNT): set the range back so that it holds the ids already given out.',
    );
  });
});
