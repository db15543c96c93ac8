import { describe, expect, test } from 'bun:test';
import type { WorkspaceSummary } from '../../web/api-client.ts';
import { chatPlaceText } from '../../web/chat-place.ts';
import { attachmentAt, locateFiles, placeName } from '../../web/files-location.ts';
import {
  createAttachmentTray,
  MAX_ATTACHMENTS,
  type MessageAttachment,
} from '../../web/message-attachments.ts';

const file = (name: string): MessageAttachment => ({ path: `/w/${name}`, name, place: 'My workspace' });

describe('createAttachmentTray', () => {
  test('adds each path once, removes, takes everything for a send, restores a refused send first', () => {
    const tray = createAttachmentTray();
    let changes = 0;
    tray.subscribe(() => {
      changes += 1;
    });
    expect(tray.add(file('a'))).toBe(true);
    expect(tray.add(file('a'))).toBe(true);
    expect(tray.add(file('b'))).toBe(true);
    expect(tray.list().map((item) => item.name)).toEqual(['a', 'b']);
    tray.remove('/w/a');
    tray.remove('/w/missing');
    expect(tray.list().map((item) => item.name)).toEqual(['b']);
    expect(tray.take().map((item) => item.name)).toEqual(['b']);
    expect(tray.list()).toEqual([]);
    tray.add(file('c'));
    tray.restore([file('b'), file('c')]);
    expect(tray.list().map((item) => item.name)).toEqual(['b', 'c']);
    expect(changes).toBe(6);
  });

  test('holds at most the server limit', () => {
    const tray = createAttachmentTray();
    for (let index = 0; index < MAX_ATTACHMENTS; index += 1) expect(tray.add(file(`f${index}`))).toBe(true);
    expect(tray.add(file('one-too-many'))).toBe(false);
    expect(tray.list().length).toBe(MAX_ATTACHMENTS);
  });
});

const personal: WorkspaceSummary = {
  id: 'ws_00000000000000000001',
  name: 'My workspace',
  path: '/srv/mango/workspaces/0b6f7c2e',
  access: 'read-write',
  kind: 'personal',
};
const site: WorkspaceSummary = {
  id: 'ws_00000000000000000002',
  name: 'site',
  path: '/home/ana/site',
  access: 'read-only',
  kind: 'granted',
};

describe('places by name', () => {
  test('the panel and the header name the workspace and the folders below it, never the server path', () => {
    const location = locateFiles([personal, site], '/srv/mango/workspaces/0b6f7c2e/app')!;
    expect(placeName(location)).toBe('My workspace / app');
    expect(placeName(location, 'app/src')).toBe('My workspace / app/src');
    expect(placeName({ workspace: site, root: '' })).toBe('site');
    expect(chatPlaceText({ workingDirectory: '/home/ana/site/docs', confined: true }, [personal, site])).toBe(
      'in site / docs',
    );
    expect(chatPlaceText({ workingDirectory: personal.path, confined: false }, [personal, site])).toBe(
      'in My workspace (reaches all my workspaces)',
    );
    expect(chatPlaceText({ workingDirectory: '/elsewhere', confined: true }, [personal])).toBe(
      'in a folder outside your workspaces',
    );
    // Until the names arrive, no path is shown.
    expect(chatPlaceText({ workingDirectory: personal.path, confined: true }, undefined)).toBe('');
    expect(chatPlaceText({ workingDirectory: personal.path, confined: false }, undefined)).toBe(
      'Reaches all my workspaces',
    );
  });

  test('an attachment is the file’s absolute path, with its name and place', () => {
    const location = { workspace: site, root: 'docs' };
    expect(attachmentAt(location, 'docs/guide/intro.md', 'intro.md')).toEqual({
      path: '/home/ana/site/docs/guide/intro.md',
      name: 'intro.md',
      place: 'site / docs/guide',
    });
    const root = { workspace: { ...site, path: '/' }, root: '' };
    expect(attachmentAt(root, 'notes.txt', 'notes.txt')).toEqual({
      path: '/notes.txt',
      name: 'notes.txt',
      place: 'site',
    });
  });
});
