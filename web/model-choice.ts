/**
 * The pure decisions of the new-chat form's provider and model fields: which provider and model to
 * preselect (the user's last choice when its provider is still available, else the first available
 * provider), which variables a fresh server needs (read from the reasons the server gives for each
 * unavailable provider, never guessed), and the `datalist` of a provider's models.
 */
import type { ProviderSummary } from './api-client.ts';

export interface ModelChoice {
  provider: string;
  model: string;
}

/** The docs page an operator reads to configure providers (in the repository). */
export const PROVIDER_DOCS_PAGE = 'docs/providers.md';

export function initialModelChoice(
  providers: readonly ProviderSummary[],
  remembered: ModelChoice | null | undefined,
): ModelChoice | undefined {
  const available = providers.filter((provider) => provider.available);
  if (remembered && available.some((provider) => provider.id === remembered.provider)) {
    return { provider: remembered.provider, model: remembered.model };
  }
  const first = available[0];
  return first ? { provider: first.id, model: first.defaultModel ?? '' } : undefined;
}

/** Environment variable names a reason mentions, in order, without repeats. */
export function variablesNamedIn(reason: string | undefined): string[] {
  return [...new Set(reason?.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g) ?? [])];
}

export interface ProviderSetupHint {
  provider: string;
  variables: string[];
  reason: string;
}

/** One line per unavailable provider: what to set for it, from the server's own reason. */
export function providerSetupHints(providers: readonly ProviderSummary[]): ProviderSetupHint[] {
  return providers
    .filter((provider) => !provider.available)
    .map((provider) => ({
      provider: provider.id,
      variables: variablesNamedIn(provider.reason),
      reason: provider.reason ?? 'It is not configured.',
    }));
}
