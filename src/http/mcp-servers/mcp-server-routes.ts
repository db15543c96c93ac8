/**
 * `/api/mcp-servers` (docs/mcp-client.md): the caller's external MCP servers — the operator's, read
 * only, and their own Streamable HTTP servers — with each one's state (connected or failed with its
 * error, its tools). `POST` adds one, `PATCH /:name` changes its URL or headers, `DELETE /:name`
 * removes it. Header values go in and are never sent back: a view names the headers that are set.
 * Thin: the schemas check the shape, `UserMcpServerService` the rules.
 */
import { Elysia, t } from 'elysia';
import type { AppDependencies } from '../app-dependencies.ts';
import { HttpError } from '../http-errors.ts';
import { parseJsonBody } from '../json-body.ts';
import { errorBodySchema } from '../settings/tool-settings-schemas.ts';

const headersSchema = t.Record(t.String(), t.String(), {
  description: 'Header name → value; values are stored encrypted and never returned.',
});

const serverViewSchema = t.Object({
  name: t.String(),
  origin: t.Union([t.Literal('operator'), t.Literal('user')]),
  transport: t.Union([t.Literal('stdio'), t.Literal('http')]),
  url: t.Optional(t.String()),
  headerNames: t.Optional(t.Array(t.String())),
  state: t.Object({
    status: t.Union([t.Literal('connected'), t.Literal('failed')]),
    error: t.Optional(t.String()),
    toolCount: t.Optional(t.Integer()),
    tools: t.Optional(t.Array(t.String())),
  }),
});

const nameParamsSchema = t.Object({ name: t.String({ maxLength: 200 }) });
const errors = { 400: errorBodySchema, 401: errorBodySchema, 413: errorBodySchema };

export function createMcpServerRoutes(deps: AppDependencies) {
  const service = () => {
    const servers = deps.externalTools?.userServers;
    if (!servers) throw new HttpError(404, 'not_found', 'This server keeps no MCP servers for users.');
    return servers;
  };
  const parse = ({ request }: { request: Request }) =>
    parseJsonBody(request, deps.config.maxRequestBodyBytes);
  return new Elysia({ name: 'mango-mcp-server-routes' })
    .use(deps.authentication)
    .get('/api/mcp-servers', async ({ user }) => service().list(user.id), {
      response: {
        200: t.Object({ servers: t.Array(serverViewSchema), problems: t.Array(t.String()) }),
        ...errors,
      },
      detail: {
        summary: "The caller's external MCP servers with their state",
        tags: ['mcp'],
        operationId: 'listMcpServers',
      },
    })
    .post(
      '/api/mcp-servers',
      async ({ user, body, set }) => {
        set.status = 201;
        return service().create(user.id, body);
      },
      {
        parse,
        body: t.Object(
          { name: t.String(), url: t.String(), headers: t.Optional(headersSchema) },
          { additionalProperties: false },
        ),
        response: { 201: serverViewSchema, ...errors, 409: errorBodySchema, 422: errorBodySchema },
        detail: {
          summary: 'Add one of your own Streamable HTTP MCP servers',
          tags: ['mcp'],
          operationId: 'addMcpServer',
        },
      },
    )
    .patch(
      '/api/mcp-servers/:name',
      async ({ user, params, body }) => service().update(user.id, params.name, body),
      {
        parse,
        params: nameParamsSchema,
        body: t.Object(
          { url: t.Optional(t.String()), headers: t.Optional(headersSchema) },
          { additionalProperties: false },
        ),
        response: {
          200: serverViewSchema,
          ...errors,
          404: errorBodySchema,
          409: errorBodySchema,
          422: errorBodySchema,
        },
        detail: {
          summary: 'Change the URL or headers of one of your MCP servers',
          tags: ['mcp'],
          operationId: 'updateMcpServer',
        },
      },
    )
    .delete(
      '/api/mcp-servers/:name',
      async ({ user, params, set }) => {
        await service().delete(user.id, params.name);
        set.status = 204;
        return null;
      },
      {
        params: nameParamsSchema,
        response: { 204: t.Null(), ...errors, 404: errorBodySchema, 409: errorBodySchema },
        detail: { summary: 'Remove one of your MCP servers', tags: ['mcp'], operationId: 'deleteMcpServer' },
      },
    );
}
