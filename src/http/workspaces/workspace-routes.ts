/**
 * The caller's workspaces, for the web app's new-chat form and folder picker: `GET /api/workspaces`
 * lists them with their opaque ids (and whether unrestricted chats are allowed), `GET /api/workspaces/directories?path=ABS`
 * lists the subdirectories of a directory inside them. A path outside them gets the one fixed
 * `422 invalid_working_directory` a chat gets, whatever is there.
 */
import { Elysia, t } from 'elysia';
import { workspaceId } from '../../workspaces/workspace-id.ts';
import { workspaceNames } from '../../workspaces/workspace-names.ts';
import type { AppDependencies } from '../app-dependencies.ts';
import { errorBodySchema } from '../settings/tool-settings-schemas.ts';

const workspaceSchema = t.Object({
  id: t.String({
    description: 'Opaque id of this workspace, for /api/workspaces/:id/files (stable while the grant is).',
  }),
  name: t.String({
    description:
      'What to call it: "My workspace" for the personal one, a grant by its folder name (with the folder above when two share it).',
  }),
  path: t.String({ description: 'Real absolute path.' }),
  access: t.Union([t.Literal('read-only'), t.Literal('read-write')]),
  kind: t.Union([t.Literal('personal'), t.Literal('granted')], {
    description: 'personal: your own workspace, created on first use; granted: given to you by an operator.',
  }),
});

const workspaceListSchema = t.Object({
  workspaces: t.Array(workspaceSchema, { description: 'The personal workspace first, then grants by path.' }),
  allowUnrestricted: t.Boolean({ description: 'Whether you may create chats with unrestricted: true.' }),
});

const directoryListSchema = t.Object({
  path: t.String({ description: 'Real absolute path of the listed directory.' }),
  directories: t.Array(t.String(), { description: 'Subdirectory names, sorted, at most 1000.' }),
});

const errors = { 400: errorBodySchema, 401: errorBodySchema };

export function createWorkspaceRoutes(deps: AppDependencies) {
  return new Elysia({ name: 'mango-workspace-routes', seed: deps })
    .use(deps.authentication)
    .get(
      '/api/workspaces',
      async ({ user }) => {
        const [workspaces, allowUnrestricted] = await Promise.all([
          deps.workspaces.listWorkspaces(user.id),
          deps.workspaces.isUnrestrictedAllowed(user.id),
        ]);
        const names = workspaceNames(workspaces);
        return {
          workspaces: workspaces.map((workspace, index) => ({
            id: workspaceId(workspace.path),
            name: names[index]!,
            ...workspace,
          })),
          allowUnrestricted,
        };
      },
      {
        response: { 200: workspaceListSchema, ...errors },
        detail: {
          summary: 'Your workspaces: where your chats may work',
          tags: ['workspaces'],
          operationId: 'listWorkspaces',
        },
      },
    )
    .get(
      '/api/workspaces/directories',
      ({ user, query }) => deps.workspaces.listDirectories(user.id, query.path),
      {
        query: t.Object({
          path: t.String({
            minLength: 1,
            maxLength: 4096,
            description: 'Absolute path (or ~, ~/…) inside one of your workspaces.',
          }),
        }),
        response: { 200: directoryListSchema, ...errors, 422: errorBodySchema },
        detail: {
          summary: 'Subdirectories of a directory in your workspaces (for choosing a working directory)',
          tags: ['workspaces'],
          operationId: 'listWorkspaceDirectories',
        },
      },
    );
}
