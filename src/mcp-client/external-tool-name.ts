/**
 * The name an external MCP tool carries in Mango: `mcp__<server>__<tool>`, only `[A-Za-z0-9_-]`, at
 * most 64 characters, so every provider accepts it. Pure and deterministic: the same server and tool
 * names give the same result on every start, because users' settings are stored by this name.
 *
 * - A name that fits unchanged is kept as it is.
 * - A name with other characters (replaced by `_`) or longer than 64 characters is cut and ends in
 *   `_` plus 8 hex digits of a SHA-256 of the original server and tool names, so two tools that read
 *   alike after replacing or cutting still differ, whatever other tools the server lists.
 * - Should two tools of one server still end up with one name (a tool literally named like another's
 *   hashed form), the first in code-point order of the original names keeps it and the other is left
 *   out and reported, rather than one shadowing the other.
 */
import { createHash } from 'node:crypto';

export const EXTERNAL_TOOL_PREFIX = 'mcp__';
export const MAX_TOOL_NAME_LENGTH = 64;
const HASH_LENGTH = 8;

function sanitize(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '_');
}

function hashOf(server: string, tool: string): string {
  return createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, HASH_LENGTH);
}

/** The Mango name of one tool of one server, independent of the server's other tools. */
export function externalToolName(server: string, tool: string): string {
  const plain = `${EXTERNAL_TOOL_PREFIX}${server}__${tool}`;
  if (plain.length <= MAX_TOOL_NAME_LENGTH && /^[A-Za-z0-9_-]+$/.test(plain)) return plain;
  const suffix = `_${hashOf(server, tool)}`;
  const sanitized = `${EXTERNAL_TOOL_PREFIX}${sanitize(server)}__${sanitize(tool)}`;
  return `${sanitized.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
}

export interface ExternalToolNaming {
  /** Original tool name → Mango name. */
  names: Map<string, string>;
  /** Tools left out because another tool of the server already has their Mango name. */
  collisions: { tool: string; name: string; keptBy: string }[];
}

/** Names every tool of one server (see the module header for how collisions are settled). */
export function nameExternalTools(server: string, tools: readonly string[]): ExternalToolNaming {
  const names = new Map<string, string>();
  const owners = new Map<string, string>();
  const collisions: ExternalToolNaming['collisions'] = [];
  const ordered = [...new Set(tools)].sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
  for (const tool of ordered) {
    const name = externalToolName(server, tool);
    const owner = owners.get(name);
    if (owner !== undefined) {
      collisions.push({ tool, name, keptBy: owner });
      continue;
    }
    owners.set(name, tool);
    names.set(tool, name);
  }
  return { names, collisions };
}
