/**
 * What a model is offered of a tool, and all a provider ever learns of one: its name, what it does and
 * the JSON Schema of its arguments. Providers receive these and never run a tool, so the type sits at
 * the bottom of the layer order (docs/architecture.md) rather than in the tool core.
 */
import type { JsonSchema } from './json-schema.ts';

/** What a model is shown: a name, what the tool does, and the JSON Schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
}
