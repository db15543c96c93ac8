import { describe, expect, test } from 'bun:test';
import type { WorkspaceSummary } from '../../web/api-client.ts';
import {
  childFolder,
  createChatBodyFrom,
  defaultWorkspace,
  folderTrail,
  parentFolder,
  workspaceLabel,
} from '../../web/workspace-folders.ts';

const personal: WorkspaceSummary = {
  id: 'ws_00000000000000000001',
  name: 'My workspace',
  path: '/srv/mango/workspaces/u-1',
  access: 'read-write',
  kind: 'personal',
};
const granted: WorkspaceSummary = {
  id: 'ws_00000000000000000002',
  name: 'shared',
  path: '/data/shared',
  access: 'read-only',
  kind: 'granted',
};

describe('workspaceLabel and defaultWorkspace', () => {
  test.each([
    [personal, 'My workspace (read-write)'],
    [granted, 'shared (granted, read-only)'],
    [{ ...granted, access: 'read-write' as const }, 'shared (granted, read-write)'],
  ])('%j → %s', (workspace, label) => {
    expect(workspaceLabel(workspace)).toBe(label);
  });

  test('the personal workspace is the default wherever it is listed; else the first; none for none', () => {
    expect(defaultWorkspace([granted, personal])).toBe(personal);
    expect(defaultWorkspace([granted])).toBe(granted);
    expect(defaultWorkspace([])).toBeUndefined();
  });
});

describe('folderTrail, parentFolder and childFolder', () => {
  test('the trail runs from the workspace root to the folder', () => {
    expect(folderTrail(personal, '/srv/mango/workspaces/u-1/app/src')).toEqual([
      { name: 'My workspace', path: '/srv/mango/workspaces/u-1' },
      { name: 'app', path: '/srv/mango/workspaces/u-1/app' },
      { name: 'src', path: '/srv/mango/workspaces/u-1/app/src' },
    ]);
    expect(folderTrail(granted, '/data/shared')).toEqual([{ name: 'shared', path: '/data/shared' }]);
  });

  test.each(['/data/shared-other/x', '/data', '/etc'])(
    'a folder outside the workspace (%s) gives only the root, and no parent',
    (outside) => {
      expect(folderTrail(granted, outside)).toEqual([{ name: 'shared', path: '/data/shared' }]);
      expect(parentFolder(granted, outside)).toBeUndefined();
    },
  );

  test('the parent of a folder is one step up; the root has none', () => {
    expect(parentFolder(granted, '/data/shared/a/b')).toBe('/data/shared/a');
    expect(parentFolder(granted, '/data/shared/a')).toBe('/data/shared');
    expect(parentFolder(granted, '/data/shared')).toBeUndefined();
  });

  test('a workspace at / walks like any other', () => {
    const root: WorkspaceSummary = {
      id: 'ws_00000000000000000003',
      name: '/',
      path: '/',
      access: 'read-write',
      kind: 'granted',
    };
    expect(childFolder('/', 'tmp')).toBe('/tmp');
    expect(folderTrail(root, '/tmp/x').map((step) => step.path)).toEqual(['/', '/tmp', '/tmp/x']);
  });

  test.each(['', '.', '..', 'a/b'])(
    'childFolder refuses %j: the picker only steps into one listed name',
    (name) => {
      expect(() => childFolder('/data/shared', name)).toThrow(`"${name}" is not a folder name.`);
    },
  );

  test('names with spaces and dots are names', () => {
    expect(childFolder('/data/shared', 'my notes..v2')).toBe('/data/shared/my notes..v2');
  });
});

describe('createChatBodyFrom', () => {
  const base = {
    provider: 'openai',
    model: ' gpt-test ',
    title: '  ',
    folder: '/data/shared/app',
    unrestricted: false,
    allowUnrestricted: false,
  };

  test('a confined chat in the chosen folder; blank title left out, model trimmed', () => {
    expect(createChatBodyFrom(base)).toEqual({
      provider: 'openai',
      model: 'gpt-test',
      workingDirectory: '/data/shared/app',
    });
  });

  test('unrestricted is sent only when the server allows it and the box is ticked', () => {
    expect(createChatBodyFrom({ ...base, unrestricted: true })).not.toHaveProperty('unrestricted');
    expect(createChatBodyFrom({ ...base, allowUnrestricted: true })).not.toHaveProperty('unrestricted');
    expect(createChatBodyFrom({ ...base, unrestricted: true, allowUnrestricted: true })).toEqual({
      provider: 'openai',
      model: 'gpt-test',
      workingDirectory: '/data/shared/app',
      unrestricted: true,
    });
  });

  test('no listed workspace: no working directory (the server uses the personal workspace); a title is kept', () => {
    expect(createChatBodyFrom({ ...base, folder: undefined, title: ' Notes ' })).toEqual({
      provider: 'openai',
      model: 'gpt-test',
      title: 'Notes',
    });
  });

  test('a system prompt is sent as typed; a blank one is left out', () => {
    expect(createChatBodyFrom({ ...base, systemPrompt: '  Answer in French.\n' })).toEqual({
      provider: 'openai',
      model: 'gpt-test',
      workingDirectory: '/data/shared/app',
      systemPrompt: '  Answer in French.\n',
    });
    expect(createChatBodyFrom({ ...base, systemPrompt: ' \n ' })).not.toHaveProperty('systemPrompt');
  });
});
