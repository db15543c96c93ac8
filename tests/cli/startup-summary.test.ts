/** What `mango serve` prints once listening. */
import { expect, test } from 'bun:test';
import { startupSummary } from '../../src/cli/startup-summary.ts';

test('a built app and one configured provider', () => {
  expect(
    startupSummary({
      url: 'http://127.0.0.1:3000',
      databaseLocation: '/data/mango.db',
      webAppBuilt: true,
      providers: [
        { id: 'openai', available: true },
        { id: 'anthropic', available: false, reason: 'ANTHROPIC_API_KEY is not set.' },
      ],
    }),
  ).toEqual([
    'Mango Tools API listening on http://127.0.0.1:3000 (database: /data/mango.db)',
    'Web app: http://127.0.0.1:3000/ (sign in with a token from `mango user add NAME`)',
    'Providers configured: openai',
    '  not configured: anthropic (ANTHROPIC_API_KEY is not set.)',
  ]);
});

test('no build and no provider: both say what to do', () => {
  expect(
    startupSummary({
      url: 'http://[::1]:8080/',
      databaseLocation: 'postgres://mango@db/mango',
      webAppBuilt: false,
      providers: [{ id: 'openai', available: false, reason: 'OPENAI_API_KEY is not set.' }],
    }),
  ).toEqual([
    'Mango Tools API listening on http://[::1]:8080 (database: postgres://mango@db/mango)',
    'Web app: not built; run `npm run build` (pages answer 503 until then)',
    'Providers configured: none, so no chat can start (see docs/providers.md)',
    '  not configured: openai (OPENAI_API_KEY is not set.)',
  ]);
});
