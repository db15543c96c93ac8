/**
 * Tool mapper (the step between loading a user's tools and calling the model): pure functions from
 * `ToolDefinition[]` to each provider's wire format, typed against the official SDKs' own request types.
 * Outputs share no object with the definitions (a caller may mutate a request without touching the registry).
 *
 * - OpenAI Responses: `strict: true` exactly when the derived strict schema passes `isStrictCompatible`;
 *   otherwise the untouched source schema goes out with `strict: false`.
 * - Chat Completions (OpenAI-compatible servers): the plain source schema, no `strict` flag — servers
 *   such as Ollama, vLLM and llama.cpp implement the plain dialect, and the source is valid in it.
 * - Gemini Interactions: the source reduced to the subset Gemini accepts (`gemini-schema.ts`).
 * - Anthropic Messages: the plain source schema as `input_schema` (length bounds included).
 */
import type { Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages';
import type { Interactions } from '@google/genai';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { FunctionTool } from 'openai/resources/responses/responses';
import type { ToolDefinition } from '../contracts/tool-definition.ts';
import { toGeminiSchema } from './gemini-schema.ts';
import { isStrictCompatible, toStrictSchema } from './strict-schema.ts';

/** OpenAI Responses function tools: `{type: 'function', name, description, parameters, strict}`. */
export function toolDefsToResponsesAPI(definitions: readonly ToolDefinition[]): FunctionTool[] {
  return definitions.map((definition) => {
    const strictSchema = toStrictSchema(definition.parameters);
    const strict = isStrictCompatible(strictSchema);
    return {
      type: 'function',
      name: definition.name,
      description: definition.description,
      parameters: strict ? strictSchema : structuredClone(definition.parameters),
      strict,
    };
  });
}

/** Chat Completions tools (`ChatCompletionTool[]`): `{type: 'function', function: {name, description, parameters}}`. */
export function toolDefsToChatCompletions(
  definitions: readonly ToolDefinition[],
): ChatCompletionFunctionTool[] {
  return definitions.map((definition) => ({
    type: 'function',
    function: {
      name: definition.name,
      description: definition.description,
      parameters: structuredClone(definition.parameters),
    },
  }));
}

/** Gemini Interactions function tools: `{type: 'function', name, description, parameters}`. */
export function toolDefsToGeminiInteractions(
  definitions: readonly ToolDefinition[],
): Interactions.Function[] {
  return definitions.map((definition) => ({
    type: 'function',
    name: definition.name,
    description: definition.description,
    parameters: toGeminiSchema(definition.parameters),
  }));
}

/** Anthropic Messages tools: `{name, description, input_schema}`. */
export function toolDefsToAnthropic(definitions: readonly ToolDefinition[]): AnthropicTool[] {
  return definitions.map((definition) => ({
    name: definition.name,
    description: definition.description,
    input_schema: { ...structuredClone(definition.parameters), type: 'object' },
  }));
}
