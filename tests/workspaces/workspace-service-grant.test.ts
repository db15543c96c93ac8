/**
 * `WorkspaceService.grant` and the preparation it is given: asked with the real path after the
 * protected set agreed, a refusal stores nothing and reads "Cannot grant DIR: …", its notes come back,
 * and `fixOwner` without a preparation is refused.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GrantPreparation, GrantRequest } from '../../src/contracts/grant-preparation.ts';
import { InMemoryWorkspaceRepository } from '../../src/workspaces/workspace-repository.ts';
import { WorkspaceService } from '../../src/workspaces/workspace-service.ts';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'mango-service-grant-')));
const workspaces = join(base, 'workspaces');
const protectedData = join(base, 'data');
const project = join(base, 'project');
for (const path of [workspaces, protectedData, project]) mkdirSync(path);
symlinkSync(project, join(base, 'project-link'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function service(prepareGrant?: GrantPreparation) {
  const repository = new InMemoryWorkspaceRepository();
  const workspaceService = new WorkspaceService({
    repository,
    workspacesDirectory: workspaces,
    protectedPaths: [{ path: protectedData, what: "the server's data directory" }],
    ...(prepareGrant === undefined ? {} : { prepareGrant }),
    now: () => Date.parse('2026-12-02T10:00:00.000Z'),
  });
  return { repository, workspaceService };
}

describe('WorkspaceService.grant with a preparation', () => {
  test('asked with the real path; a refusal stores nothing', async () => {
    const requests: GrantRequest[] = [];
    const { repository, workspaceService } = service(async (request) => {
      requests.push(request);
      return { refusal: 'the user cannot reach it.', notes: ['ignored'] };
    });
    const refused = workspaceService.grant('u1', join(base, 'project-link'), true, { fixOwner: true });
    await expect(refused).rejects.toMatchObject({
      code: 'grant_refused',
      message: `Cannot grant ${join(base, 'project-link')}: the user cannot reach it.`,
    });
    expect(requests).toEqual([{ userId: 'u1', path: project, readOnly: true, fixOwner: true }]);
    expect(await repository.listGrants('u1')).toEqual([]);
  });

  test('agreed: the grant is stored and the notes come back', async () => {
    const { repository, workspaceService } = service(async () => ({ notes: ['Gave it to group 7.'] }));
    expect(await workspaceService.grant('u1', project, false)).toEqual({
      grant: { userId: 'u1', path: project, readOnly: false, createdAt: '2026-12-02T10:00:00.000Z' },
      created: true,
      notes: ['Gave it to group 7.'],
    });
    expect((await repository.listGrants('u1')).map((grant) => grant.path)).toEqual([project]);
  });

  test('the protected set refuses first: the preparation is never asked', async () => {
    const requests: GrantRequest[] = [];
    const { workspaceService } = service(async (request) => {
      requests.push(request);
      return { notes: [] };
    });
    await expect(workspaceService.grant('u1', protectedData, false)).rejects.toMatchObject({
      code: 'grant_refused',
    });
    expect(requests).toEqual([]);
  });

  test('without a preparation: grants as before, and fixOwner is refused', async () => {
    const { repository, workspaceService } = service();
    expect((await workspaceService.grant('u1', project, false)).notes).toEqual([]);
    await expect(workspaceService.grant('u2', project, false, { fixOwner: true })).rejects.toMatchObject({
      code: 'grant_refused',
      message: `Cannot grant ${project}: --fix-owner needs the shell sandbox's ids, and this process was given none (a \`mango\` command passes its own).`,
    });
    expect(await repository.listGrants('u2')).toEqual([]);
  });
});
