/**
 * Builds the OpenAPI 3.1 document from the routes an Elysia app has mounted: the same TypeBox schemas
 * that validate requests and responses (TypeBox schemas are JSON Schema, which OpenAPI 3.1 embeds).
 * A route appears with its `detail` (summary, tags, operationId), path parameters, JSON body and
 * responses, plus what its `detail.responses` states in OpenAPI's own words (a stream, a download, a
 * header beside a declared body); a 204 has no body. Every `/api` and `/mcp` route but the public ones is marked as needing
 * the bearer token and answers 401 without it; a public one says it needs none. Routes with
 * `detail.hide` (the web app's pages) are left out. `npm run check` lints the result with Redocly's
 * recommended rules, warnings as errors (scripts/lint-openapi.ts).
 */
import { PROTECTED_PATH_PREFIXES, PUBLIC_API_PATHS } from './authentication.ts';

/** The part of an Elysia route this module reads. */
export interface RouteForDocument {
  method: string;
  path: string;
  hooks?: {
    params?: unknown;
    body?: unknown;
    response?: unknown;
    detail?: {
      summary?: string;
      description?: string;
      tags?: string[];
      operationId?: string;
      hide?: boolean;
      /** Responses in OpenAPI's own form, for what no JSON schema describes (streams, downloads). */
      responses?: Record<string, unknown>;
    };
  };
}

type JsonObject = Record<string, unknown>;

/** A plain-JSON copy of a TypeBox schema (drops its symbol keys and `$id`s). */
function toJsonSchema(schema: unknown): JsonObject {
  const copy = JSON.parse(JSON.stringify(schema ?? {})) as JsonObject;
  const strip = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(strip);
    else if (typeof value === 'object' && value !== null) {
      delete (value as JsonObject).$id;
      Object.values(value).forEach(strip);
    }
  };
  strip(copy);
  return copy;
}

const STATUS_DESCRIPTIONS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  204: 'Done; no body',
  400: 'Malformed JSON or a body that does not match the schema',
  401: 'Missing or invalid bearer token',
  404: "No such tool or chat (another user's chat counts as none)",
  409: 'The chat is already running a turn',
  413: 'Body too large',
  422: 'A value is invalid: a setting, a working directory, a provider…',
  429: 'The user already runs as many turns at once as one user may; retry after Retry-After seconds',
  503: "The chat's provider is not configured on this server",
};

function isProtected(path: string): boolean {
  if (PUBLIC_API_PATHS.has(path)) return false;
  return path === '/api' || PROTECTED_PATH_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/** The OpenAPI document for `routes` (typically `app.routes`). */
export function buildOpenApiDocument(routes: readonly RouteForDocument[], version: string): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    const hooks = route.hooks ?? {};
    if (hooks.detail?.hide || route.method === 'ALL') continue;
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation: JsonObject = {};
    if (hooks.detail?.operationId) operation.operationId = hooks.detail.operationId;
    if (hooks.detail?.summary) operation.summary = hooks.detail.summary;
    if (hooks.detail?.description) operation.description = hooks.detail.description;
    if (hooks.detail?.tags) operation.tags = hooks.detail.tags;
    const params = hooks.params ? toJsonSchema(hooks.params) : undefined;
    const properties = (params?.properties ?? {}) as Record<string, JsonObject>;
    if (Object.keys(properties).length > 0) {
      operation.parameters = Object.entries(properties).map(([name, schema]) => ({
        name,
        in: 'path',
        required: true,
        schema,
      }));
    }
    if (hooks.body) {
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: toJsonSchema(hooks.body) } },
      };
    }
    const responses: JsonObject = {};
    const declared = (hooks.response ?? {}) as Record<string, unknown>;
    const byStatus =
      typeof declared === 'object' && declared !== null && 'type' in declared ? { 200: declared } : declared;
    for (const [status, schema] of Object.entries(byStatus)) {
      const description = STATUS_DESCRIPTIONS[status] ?? `Status ${status}`;
      responses[status] =
        status === '204'
          ? { description }
          : { description, content: { 'application/json': { schema: toJsonSchema(schema) } } };
    }
    for (const [status, stated] of Object.entries(hooks.detail?.responses ?? {})) {
      // Stated in OpenAPI's words, it adds to what the route's schema gives (a header beside the body).
      responses[status] = { ...(responses[status] as JsonObject | undefined), ...(stated as JsonObject) };
    }
    if (!Object.keys(responses).some((status) => status.startsWith('2'))) {
      responses[200] = { description: 'OK' };
    }
    if (isProtected(route.path)) {
      operation.security = [{ bearerAuth: [] }];
      responses[401] ??= { description: STATUS_DESCRIPTIONS[401] };
    } else {
      operation.security = [];
    }
    operation.responses = responses;
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Mango Tools API',
      version,
      description:
        'Tool settings of the Mango Tools server. Every /api route needs "Authorization: Bearer <token>".',
    },
    servers: [{ url: '/', description: 'The server this document was fetched from' }],
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
    paths,
  };
}
