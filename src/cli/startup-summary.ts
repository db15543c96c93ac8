/**
 * What `mango serve` (and so `npm start`) tells the operator once the server listens: where the web
 * app is, and which model providers are configured, with the reason each other one is not, so a fresh
 * install says what to set instead of starting silently into a page that cannot chat.
 */
import type { ProviderStatus } from '../providers/provider-registry.ts';

export interface StartupFacts {
  url: string;
  databaseLocation: string;
  webAppBuilt: boolean;
  providers: readonly ProviderStatus[];
}

export function startupSummary(facts: StartupFacts): string[] {
  const base = facts.url.replace(/\/+$/, '');
  const lines = [`Mango Tools API listening on ${base} (database: ${facts.databaseLocation})`];
  lines.push(
    facts.webAppBuilt
      ? `Web app: ${base}/ (sign in with a token from \`mango user add NAME\`)`
      : `Web app: not built; run \`npm run build\` (pages answer 503 until then)`,
  );
  const configured = facts.providers.filter((provider) => provider.available).map((provider) => provider.id);
  const missing = facts.providers.filter((provider) => !provider.available);
  lines.push(
    configured.length > 0
      ? `Providers configured: ${configured.join(', ')}`
      : 'Providers configured: none, so no chat can start (see docs/providers.md)',
  );
  for (const provider of missing) {
    lines.push(`  not configured: ${provider.id} (${provider.reason ?? 'not configured'})`);
  }
  return lines;
}
