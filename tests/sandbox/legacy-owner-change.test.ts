import { describe, expect, test } from 'bun:test';
import {
  clearsSetuid,
  type EntryChange,
  type EntryFacts,
  legacyOwnerChange,
  type OwnerRule,
} from '../../src/sandbox/legacy-owner-change.ts';

const LEGACY = 61000;
const USER = 1_900_000_001;
const GROUP = 1_900_000_002;
const personal: OwnerRule = { kind: 'personal', legacyUid: LEGACY, uid: USER, gid: USER };
const soleGrant: OwnerRule = { kind: 'grant', legacyUid: LEGACY, uid: USER, gid: GROUP };
const sharedGrant: OwnerRule = { kind: 'grant', legacyUid: LEGACY, uid: 0, gid: GROUP };

function facts(type: EntryFacts['type'], uid: number, mode: number, links = 1): EntryFacts {
  return { type, uid, gid: uid, mode, links };
}

describe('legacyOwnerChange', () => {
  const cases: [string, EntryFacts, OwnerRule, boolean, EntryChange][] = [
    [
      'a legacy file of a personal tree',
      facts('file', LEGACY, 0o644),
      personal,
      false,
      { action: 'give', uid: USER, gid: USER },
    ],
    [
      'a root file of a personal tree',
      facts('file', 0, 0o600),
      personal,
      false,
      { action: 'give', uid: USER, gid: USER },
    ],
    ['a file already the user’s', facts('file', USER, 0o644), personal, false, { action: 'keep' }],
    ['a file of another uid', facts('file', 1234, 0o4755), personal, false, { action: 'keep' }],
    [
      'a legacy setuid file',
      facts('file', LEGACY, 0o4755),
      personal,
      false,
      { action: 'give', uid: USER, gid: USER, mode: 0o755 },
    ],
    [
      'a root setgid file',
      facts('file', 0, 0o2755),
      personal,
      false,
      { action: 'give', uid: USER, gid: USER, mode: 0o755 },
    ],
    [
      'a legacy setgid directory keeps its bits',
      facts('directory', LEGACY, 0o2755),
      personal,
      false,
      { action: 'give', uid: USER, gid: USER },
    ],
    [
      'a personal root becomes 0700',
      facts('directory', LEGACY, 0o2755),
      personal,
      true,
      { action: 'give', uid: USER, gid: USER, mode: 0o700 },
    ],
    [
      'a legacy symlink is given, with no mode',
      facts('symlink', LEGACY, 0o777),
      personal,
      false,
      { action: 'give', uid: USER, gid: USER },
    ],
    [
      'a legacy FIFO',
      facts('other', LEGACY, 0o644),
      personal,
      false,
      { action: 'give', uid: USER, gid: USER },
    ],
    [
      'a hard-linked legacy file',
      facts('file', LEGACY, 0o600, 2),
      personal,
      false,
      { action: 'leave', reason: 'hard link' },
    ],
    [
      'a hard-linked legacy setuid file loses the bits only',
      facts('file', LEGACY, 0o6755, 3),
      personal,
      false,
      { action: 'leave', reason: 'hard link', mode: 0o755 },
    ],
    [
      'a hard-linked root setuid file is left whole',
      facts('file', 0, 0o4755, 2),
      personal,
      false,
      { action: 'leave', reason: 'hard link' },
    ],
    [
      'a hard-linked legacy symlink',
      facts('symlink', LEGACY, 0o777, 2),
      personal,
      false,
      { action: 'leave', reason: 'hard link' },
    ],
    ['a root device', facts('device', 0, 0o666), personal, false, { action: 'leave', reason: 'device' }],
    ['a device of another uid', facts('device', 1234, 0o666), personal, false, { action: 'keep' }],
    [
      'a legacy file of a sole grant',
      facts('file', LEGACY, 0o640),
      soleGrant,
      false,
      { action: 'give', uid: USER, gid: GROUP, mode: 0o660 },
    ],
    [
      'a legacy directory of a shared grant',
      facts('directory', LEGACY, 0o750),
      sharedGrant,
      false,
      { action: 'give', uid: 0, gid: GROUP, mode: 0o2770 },
    ],
    [
      'a grant root gets no 0700',
      facts('directory', LEGACY, 0o755),
      sharedGrant,
      true,
      { action: 'give', uid: 0, gid: GROUP, mode: 0o2775 },
    ],
    [
      'a legacy setuid file of a shared grant never stays setuid',
      facts('file', LEGACY, 0o4750),
      sharedGrant,
      false,
      { action: 'give', uid: 0, gid: GROUP, mode: 0o770 },
    ],
    [
      'a group already like its owner',
      facts('file', LEGACY, 0o664),
      soleGrant,
      false,
      { action: 'give', uid: USER, gid: GROUP },
    ],
    [
      'a legacy symlink of a grant',
      facts('symlink', LEGACY, 0o777),
      soleGrant,
      false,
      { action: 'give', uid: USER, gid: GROUP },
    ],
    ['a root file of a grant', facts('file', 0, 0o4755), sharedGrant, false, { action: 'keep' }],
    [
      'a hard-linked legacy file of a grant',
      facts('file', LEGACY, 0o640, 2),
      soleGrant,
      false,
      { action: 'leave', reason: 'hard link' },
    ],
  ];
  for (const [name, entry, rule, treeRoot, expected] of cases) {
    test(name, () => expect(legacyOwnerChange(entry, rule, treeRoot)).toEqual(expected));
  }
});

describe('clearsSetuid', () => {
  test('only a regular file whose setuid or setgid bit goes', () => {
    const setuid = facts('file', LEGACY, 0o4755);
    expect(clearsSetuid(setuid, legacyOwnerChange(setuid, personal))).toBe(true);
    const linked = facts('file', LEGACY, 0o2755, 2);
    expect(clearsSetuid(linked, legacyOwnerChange(linked, personal))).toBe(true);
    const root = facts('directory', LEGACY, 0o4755);
    expect(clearsSetuid(root, legacyOwnerChange(root, personal, true))).toBe(false);
    const plain = facts('file', LEGACY, 0o640);
    expect(clearsSetuid(plain, legacyOwnerChange(plain, soleGrant))).toBe(false);
    expect(clearsSetuid(setuid, { action: 'keep' })).toBe(false);
  });
});
