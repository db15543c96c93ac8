import { describe, expect, test } from 'bun:test';
import { workspaceNames } from '../../src/workspaces/workspace-names.ts';

const personal = {
  path: '/srv/mango/workspaces/0b6f7c2e-41d8-4f43-9a6e-2f0c11f3a1de',
  kind: 'personal' as const,
};
const grant = (path: string) => ({ path, kind: 'granted' as const });

describe('workspace names', () => {
  test('the personal workspace is "My workspace", never its path; a grant is its folder name', () => {
    expect(workspaceNames([personal, grant('/home/ana/projects/site'), grant('/data/shared')])).toEqual([
      'My workspace',
      'site',
      'shared',
    ]);
  });

  test('grants sharing a folder name get the folder above; sharing that too, their whole path', () => {
    expect(
      workspaceNames([
        personal,
        grant('/home/alice/site'),
        grant('/home/bob/site'),
        grant('/a/x/docs'),
        grant('/b/x/docs'),
        grant('/c/docs'),
        grant('/'),
      ]),
    ).toEqual(['My workspace', 'site (alice)', 'site (bob)', '/a/x/docs', '/b/x/docs', 'docs (c)', '/']);
  });
});
