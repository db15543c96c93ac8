/**
 * The walkthrough's tool list, standing in for src/tools/builtin/register-builtin-tools.ts: adding a tool is one entry
 * here. A registry of its own keeps the walkthrough tool out of the process-wide registry the builtin
 * tests enumerate.
 */
import { ToolRegistry } from '../../../src/tools/registry.ts';
import type { RegisteredTool } from '../../../src/tools/types.ts';
import { shoutTool } from './shout-tool.ts';

export const WALKTHROUGH_TOOLS: RegisteredTool[] = [shoutTool];

export function createWalkthroughRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of WALKTHROUGH_TOOLS) registry.register(tool);
  return registry;
}
