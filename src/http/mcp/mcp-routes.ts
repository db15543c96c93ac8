/**
 * `/mcp` (docs/mcp.md): the MCP Streamable HTTP transport, every method, behind the bearer-token auth.
 *
 * - The authentication guard answers 401 before anything is read; the handler gets only the `user`.
 * - `parse: 'none'`: Elysia must not consume the body, the SDK transport reads the request itself.
 * - One `McpHttpSessions` per app (`deps.mcpSessions`), and the app's `ToolSettingsEvents`, the same
 *   instance the settings service emits on: a PUT /api/settings/tools/… sends
 *   `notifications/tools/list_changed` to that user's running sessions.
 * - `?cwd=` must lie inside the user's workspaces, the rule a chat's working directory follows.
 * - Tools that write files (generate_image) store them under the server's data directory.
 * - Calls take the instance's per-user slots, the ones its chat turns take (`MANGO_USER_MAX_TOOL_CALLS`).
 * - Every answer carries `Mango-MCP-Server`, by which Mango's own MCP client refuses to use a Mango
 *   server as an external one (docs/mcp-client.md).
 */
import { Elysia } from 'elysia';
import { keepAliveMillisecondsFor } from '../../config.ts';
import { handleMcpHttpRequest } from '../../mcp/mcp-http-handler.ts';
import { SELF_MARK_HEADER } from '../../mcp-client/guarded-fetch.ts';
import type { AppDependencies } from '../app-dependencies.ts';

export function createMcpRoutes(deps: AppDependencies) {
  return new Elysia({ name: 'mango-mcp-routes' }).use(deps.authentication).all(
    '/mcp',
    async ({ request, user }) => {
      const response = await handleMcpHttpRequest(request, user, {
        sessions: deps.mcpSessions,
        toolSettings: deps.toolSettingsRepository,
        toolSettingsEvents: deps.events,
        registry: deps.registry,
        executeOptions: { callSlots: deps.toolCallSlots },
        dataDirectory: deps.config.dataDirectory,
        workspaces: deps.workspaces,
        keepAliveMilliseconds: keepAliveMillisecondsFor(deps.config),
        log: (message) => deps.log(`[mango mcp] ${message}`),
      });
      response.headers.set(SELF_MARK_HEADER, '1');
      return response;
    },
    {
      parse: 'none',
      detail: {
        summary: 'MCP over Streamable HTTP (JSON-RPC; see the MCP specification)',
        tags: ['mcp'],
        operationId: 'mcp',
      },
    },
  );
}
