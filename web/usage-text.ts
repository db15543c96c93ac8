/**
 * How token usage reads in the page: "1,234 tokens in · 56 out", the same words under each answer and
 * in a chat's header total, so the two can be compared at a glance.
 */
import type { TurnUsage } from './api-client.ts';

const numbers = new Intl.NumberFormat('en');

export function usageText(usage: TurnUsage): string {
  return `${numbers.format(usage.inputTokens)} tokens in · ${numbers.format(usage.outputTokens)} out`;
}

/** The sum of several turns' usage. */
export function totalUsage(usages: readonly TurnUsage[]): TurnUsage {
  return usages.reduce(
    (total, usage) => ({
      inputTokens: total.inputTokens + usage.inputTokens,
      outputTokens: total.outputTokens + usage.outputTokens,
    }),
    { inputTokens: 0, outputTokens: 0 },
  );
}
