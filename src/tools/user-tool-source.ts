/**
 * Where a user's tools come from when they are not only the process-wide builtins: the builtins plus
 * tools only that user has (those of external MCP servers, docs/mcp-client.md). The settings service,
 * the enabled-tool runtime and the turn ask it for one user's registry and then treat every tool in it
 * alike — the same settings, validation, budget and result rules — so no path is copied for external
 * tools. A source never throws for one broken origin of tools: that origin's tools are left out.
 */
import type { ReachableSet } from './access/reachable-set.ts';
import type { ToolRegistry } from './registry.ts';

export interface UserToolSource {
  /**
   * The tools `userId` has now, builtins first, in a registry of that user's own. `reachable` is the
   * chat's (a program's tools can depend on what it sees); without it, every tool the user has anywhere.
   */
  registryFor(userId: string, reachable?: ReachableSet): Promise<ToolRegistry>;
}
