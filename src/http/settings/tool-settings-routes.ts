/**
 * `GET /api/settings/tools` and `PUT /api/settings/tools/:toolName` (docs/http-api.md). Thin:
 * each route validates with its schemas, calls one `ToolSettingsService` method and returns.
 */
import { Elysia } from 'elysia';
import type { AppDependencies } from '../app-dependencies.ts';
import { parseJsonBody } from '../json-body.ts';
import {
  errorBodySchema,
  toolNameParamsSchema,
  toolSettingsDescriptorSchema,
  toolSettingsListResponseSchema,
  updateToolSettingsBodySchema,
} from './tool-settings-schemas.ts';

const errorResponses = { 400: errorBodySchema, 401: errorBodySchema };

export function createToolSettingsRoutes(deps: AppDependencies) {
  return new Elysia({ name: 'mango-tool-settings-routes' })
    .use(deps.authentication)
    .get('/api/settings/tools', async ({ user }) => ({ tools: await deps.toolSettings.list(user.id) }), {
      response: { 200: toolSettingsListResponseSchema, ...errorResponses },
      detail: {
        summary: "List every tool with the user's effective settings",
        tags: ['settings'],
        operationId: 'listToolSettings',
      },
    })
    .put(
      '/api/settings/tools/:toolName',
      async ({ user, params, body }) => deps.toolSettings.update(user.id, params.toolName, body),
      {
        parse: ({ request }) => parseJsonBody(request, deps.config.maxRequestBodyBytes),
        params: toolNameParamsSchema,
        body: updateToolSettingsBodySchema,
        response: {
          200: toolSettingsDescriptorSchema,
          ...errorResponses,
          404: errorBodySchema,
          413: errorBodySchema,
          422: errorBodySchema,
        },
        detail: {
          summary: "Change a tool's enabled state and parameters; returns the updated descriptor",
          tags: ['settings'],
          operationId: 'updateToolSettings',
        },
      },
    );
}
