/**
 * The tool registry (docs/tools.md, "How every call runs"). Builtins call `registerTool` at import time; the
 * module-level functions act on one process-wide registry, and `ToolRegistry` instances let tests and
 * embedders hold registries of their own.
 */
import type { RegisteredTool } from './types.ts';

export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();

  /**
   * Registers a tool. Registering the same tool object again is a no-op (modules may be imported
   * twice); registering a different tool under a taken name is an error.
   */
  register(tool: RegisteredTool): void {
    const name = tool.definition.name;
    const existing = this.#tools.get(name);
    if (existing === tool) return;
    if (existing) throw new Error(`A different tool is already registered under the name "${name}".`);
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
      throw new Error(`Tool name "${name}" must be 1–64 letters, digits, underscores or dashes.`);
    }
    this.#tools.set(name, tool);
  }

  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  /** The registered tools in registration order. */
  list(): RegisteredTool[] {
    return [...this.#tools.values()];
  }
}

/** The process-wide registry that builtins register into. */
export const defaultToolRegistry = new ToolRegistry();

export function registerTool(tool: RegisteredTool): void {
  defaultToolRegistry.register(tool);
}

export function getTool(name: string): RegisteredTool | undefined {
  return defaultToolRegistry.get(name);
}

export function listTools(): RegisteredTool[] {
  return defaultToolRegistry.list();
}
