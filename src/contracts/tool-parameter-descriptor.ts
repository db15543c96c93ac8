/**
 * How a tool's user-tunable setting is described on the wire: its type, bounds and default, complete
 * enough for the web app to render an editor from it alone. The tool core derives descriptors from a
 * tool's settings and validates values against them, the settings API returns them and the web app
 * renders them, so the types sit at the bottom of the layer order (docs/architecture.md).
 */

/** A path list entry: settings `allowedPaths` / `deniedPaths`. */
export interface PathListEntry {
  path: string;
  enabled: boolean;
}

export type ToolParameterType =
  | 'integer'
  | 'number'
  | 'boolean'
  | 'string'
  | 'select'
  | 'string_list'
  | 'path_list';

/**
 * Describes one user-tunable setting of a tool, complete enough for a settings page to render an
 * editor from it alone and for `normalizeToolParameters` to validate a value.
 */
export interface ToolParameterDescriptor {
  name: string;
  label: string;
  description: string;
  type: ToolParameterType;
  /** `select` only: the values a user may choose. */
  allowedValues?: string[];
  required?: boolean;
  default?: unknown;
  /** `integer` / `number`: inclusive bounds. */
  min?: number;
  max?: number;
}
