/**
 * Builds the OpenAPI 3.1 document from the routes an Elysia app has mounted: the same TypeBox schemas
 * that validate requests and responses (TypeBox schemas are JSON Schema, which OpenAPI 3.1 embeds).
 * A route appears with its `detail` (summary, tags, operationId), path parameters, JSON body and
 * responses; every `/api` and `/mcp` route is marked as needing the bearer token.
 */
import { PROTECTED_PATH_PREFIXES } from './authentication.ts';

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
  400: 'Malformed JSON or a body that does not match the schema',
  401: 'Missing or invalid bearer token',
  404: 'No such tool',
  413: 'Body too large',
  422: 'A setting is invalid or the tool cannot be disabled',
};

function isProtected(path: string): boolean {
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
      responses[status] = {
        description: STATUS_DESCRIPTIONS[status] ?? `Status ${status}`,
        content: { 'application/json': { schema: toJsonSchema(schema) } },
      };
    }
    operation.responses = Object.keys(responses).length > 0 ? responses : { 200: { description: 'OK' } };
    if (isProtected(route.path)) operation.security = [{ bearerAuth: [] }];
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
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
    paths,
  };
}
