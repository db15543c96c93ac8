/**
 * The ids of the model providers Mango speaks to, as the API, the command line and the database name
 * them. A constant table every layer that stores or checks a provider reads, so it sits at the bottom
 * of the layer order (docs/architecture.md).
 */

/** Provider ids used in the API, the CLI and the database. */
export type ProviderId = 'openai' | 'openai-compatible' | 'gemini' | 'gemini-generate-content' | 'anthropic';
export const PROVIDER_IDS: readonly ProviderId[] = [
  'openai',
  'openai-compatible',
  'gemini',
  'gemini-generate-content',
  'anthropic',
];
