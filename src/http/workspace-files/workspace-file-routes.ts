/**
 * The files of a caller's workspace, for the web app's files panel and any API client:
 * `GET /api/workspaces/:id/files?path=` lists a directory, `GET /api/workspaces/:id/files/content?path=`
 * downloads a file, `POST /api/workspaces/:id/files?path=&name=[&overwrite=true]` uploads one. `:id` is
 * a workspace's opaque id from `GET /api/workspaces`; `path` is relative to that workspace's root. What
 * each request may reach is that one workspace (see `workspace-file-scope.ts`); everything outside it
 * gets the one fixed `422 invalid_working_directory`.
 */

import { Elysia, t } from 'elysia';
import { maxUploadBytesOf, type ServerConfig } from '../../config.ts';
import type { AppDependencies } from '../app-dependencies.ts';
import { errorBodySchema } from '../settings/tool-settings-schemas.ts';
import { downloadWorkspaceFile } from './workspace-file-download.ts';
import { listWorkspaceFiles, MAX_LISTED_FILES } from './workspace-file-listing.ts';
import { openWorkspaceFileScope, workspaceRelativePath } from './workspace-file-scope.ts';
import { readBodyWithin, uploadWorkspaceFile } from './workspace-file-upload.ts';

/** The upload route's path; its body may exceed `maxRequestBodyBytes` (up to the upload cap). */
const UPLOAD_PATH = /^\/api\/workspaces\/[^/]+\/files$/;

/** The body limit of `request` when it is an upload, else undefined (the app's general limit applies). */
export function uploadBodyLimit(
  request: Request,
  config: Pick<ServerConfig, 'maxUploadBytes'>,
): number | undefined {
  if (request.method !== 'POST') return undefined;
  return UPLOAD_PATH.test(new URL(request.url).pathname) ? maxUploadBytesOf(config) : undefined;
}

const params = t.Object({
  id: t.String({ maxLength: 100, description: 'A workspace id from GET /api/workspaces.' }),
});
const pathQuery = t.String({
  maxLength: 4096,
  description: 'Relative to the workspace root; empty (or omitted) for the root.',
});

const entrySchema = t.Object({
  name: t.String(),
  type: t.Union([t.Literal('file'), t.Literal('directory'), t.Literal('symlink'), t.Literal('other')]),
  size: t.Optional(t.Number({ description: 'Bytes; regular files only.' })),
  modifiedAt: t.Optional(t.String({ description: 'ISO 8601.' })),
});

const listingSchema = t.Object({
  workspace: t.String(),
  path: t.String({ description: 'The listed directory relative to the workspace root; "" for the root.' }),
  entries: t.Array(entrySchema, { description: `Folders first, then by name; at most ${MAX_LISTED_FILES}.` }),
  omitted: t.Number({ description: 'Entries left out because they lead outside the workspace.' }),
  truncated: t.Boolean(),
});

const uploadSchema = t.Object({
  workspace: t.String(),
  path: t.String({ description: 'The new file relative to the workspace root.' }),
  size: t.Number(),
  replaced: t.Boolean({ description: 'True when an existing file was replaced (overwrite=true).' }),
});

const errors = {
  400: errorBodySchema,
  401: errorBodySchema,
  403: errorBodySchema,
  404: errorBodySchema,
  422: errorBodySchema,
};

export function createWorkspaceFileRoutes(deps: AppDependencies) {
  const scope = (userId: string, id: string) => openWorkspaceFileScope(deps.workspaces, userId, id, deps.now);
  return new Elysia({ name: 'mango-workspace-file-routes', seed: deps })
    .use(deps.authentication)
    .get(
      '/api/workspaces/:id/files',
      async ({ user, params, query }) =>
        listWorkspaceFiles(await scope(user.id, params.id), workspaceRelativePath(query.path)),
      {
        params,
        query: t.Object({ path: t.Optional(pathQuery) }),
        response: { 200: listingSchema, ...errors },
        detail: {
          summary: 'The entries of a directory of one of your workspaces (folders first)',
          tags: ['workspaces'],
          operationId: 'listWorkspaceFiles',
        },
      },
    )
    .get(
      '/api/workspaces/:id/files/content',
      async ({ user, params, query }) =>
        downloadWorkspaceFile(await scope(user.id, params.id), workspaceRelativePath(query.path)),
      {
        params,
        query: t.Object({ path: t.String({ ...pathQuery, minLength: 1 }) }),
        detail: {
          summary: 'Download one regular file of your workspace (always as an attachment)',
          tags: ['workspaces'],
          operationId: 'downloadWorkspaceFile',
          responses: {
            200: {
              description: 'The file, application/octet-stream, Content-Disposition: attachment.',
              content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
            },
          },
        },
      },
    )
    .post(
      '/api/workspaces/:id/files',
      async ({ user, params, query, request, set }) => {
        const opened = await scope(user.id, params.id);
        const result = await uploadWorkspaceFile(opened, {
          directory: workspaceRelativePath(query.path),
          name: query.name,
          overwrite: query.overwrite === 'true',
          body: await readBodyWithin(request, maxUploadBytesOf(deps.config)),
        });
        set.status = result.replaced ? 200 : 201;
        return result;
      },
      {
        parse: 'none',
        params,
        query: t.Object({
          path: t.Optional(pathQuery),
          name: t.String({ maxLength: 1024, description: 'The file name: no "/", NUL, "." or "..".' }),
          overwrite: t.Optional(
            t.Union([t.Literal('true'), t.Literal('false')], {
              description: 'true replaces an existing file; otherwise an existing file is a 409.',
            }),
          ),
        }),
        response: {
          200: uploadSchema,
          201: uploadSchema,
          ...errors,
          409: errorBodySchema,
          413: errorBodySchema,
          507: errorBodySchema,
        },
        detail: {
          summary: 'Upload a file (the raw request body) into a directory of your workspace',
          tags: ['workspaces'],
          operationId: 'uploadWorkspaceFile',
        },
      },
    );
}
