import { describe, expect, test } from 'bun:test';
import { describeInstant } from '../../../src/tools/builtin/get-current-datetime.ts';
import { executeTool } from '../../../src/tools/execution.ts';
import '../../../src/tools/builtin/register-builtin-tools.ts';
import { makeReachableSet } from '../../helpers/tool-context.ts';

describe('describeInstant at known instants', () => {
  const cases: [string, string, string, string, string][] = [
    // instant (UTC), zone, locale, expected offset, expected localDateTime
    [
      '2026-11-30T06:00:00Z',
      'America/Sao_Paulo',
      'pt-BR',
      'GMT-3',
      'segunda-feira, 30 de novembro de 2026 às 03:00:00 BRT',
    ],
    [
      '2026-11-30T06:00:00Z',
      'Asia/Kolkata',
      'en-US',
      'GMT+5:30',
      'Monday, November 30, 2026 at 11:30:00 AM GMT+5:30',
    ],
    ['2026-11-30T06:00:00Z', 'UTC', 'en-US', 'GMT+0', 'Monday, November 30, 2026 at 6:00:00 AM UTC'],
    // Lord Howe: +10:30 in southern winter, +11 in summer (its DST shift is 30 minutes).
    [
      '2026-07-01T00:00:00Z',
      'Australia/Lord_Howe',
      'en-US',
      'GMT+10:30',
      'Wednesday, July 1, 2026 at 10:30:00 AM GMT+10:30',
    ],
    [
      '2026-12-01T00:00:00Z',
      'Australia/Lord_Howe',
      'en-US',
      'GMT+11',
      'Tuesday, December 1, 2026 at 11:00:00 AM GMT+11',
    ],
    // US DST ends 2026-11-01 at 02:00 local: one second before (EDT) and after (EST) the switch.
    [
      '2026-11-01T05:59:59Z',
      'America/New_York',
      'en-US',
      'GMT-4',
      'Sunday, November 1, 2026 at 1:59:59 AM EDT',
    ],
    [
      '2026-11-01T06:00:00Z',
      'America/New_York',
      'en-US',
      'GMT-5',
      'Sunday, November 1, 2026 at 1:00:00 AM EST',
    ],
    // Europe DST starts 2026-03-29 at 01:00 UTC.
    ['2026-03-29T00:59:59Z', 'Europe/Berlin', 'de-DE', 'GMT+1', 'Sonntag, 29. März 2026 um 01:59:59 MEZ'],
    ['2026-03-29T01:00:00Z', 'Europe/Berlin', 'de-DE', 'GMT+2', 'Sonntag, 29. März 2026 um 03:00:00 MESZ'],
  ];
  test.each(cases)('%s in %s (%s)', (iso, zone, locale, offset, local) => {
    const unixMs = Date.parse(iso);
    expect(describeInstant(unixMs, zone, locale)).toEqual({
      isoUtc: new Date(unixMs).toISOString(),
      unixMs,
      timezone: zone,
      locale,
      localDateTime: local,
      offset,
    });
  });

  test('zone and locale are canonicalized', () => {
    const result = describeInstant(0, 'utc', 'pt-br');
    expect(result.timezone).toBe('UTC');
    expect(result.locale).toBe('pt-BR');
  });
});

describe('get_current_datetime through executeTool', () => {
  const now = () => Date.parse('2026-11-30T06:00:00Z');
  const context = { userId: 'u', reachable: makeReachableSet(), now };

  test('defaults are UTC and en-US', async () => {
    const result = await executeTool('get_current_datetime', {}, context);
    expect(result).toEqual({
      ok: true,
      result: {
        isoUtc: '2026-11-30T06:00:00.000Z',
        unixMs: 1796018400000,
        timezone: 'UTC',
        locale: 'en-US',
        localDateTime: 'Monday, November 30, 2026 at 6:00:00 AM UTC',
        offset: 'GMT+0',
      },
    });
    expect(await executeTool('get_current_datetime', { timezone: null, locale: null }, context)).toEqual(
      result,
    );
  });

  test.each([
    [
      { timezone: 'Mars/Olympus' },
      'Unknown time zone "Mars/Olympus". Use an IANA time zone name such as "UTC", "America/Sao_Paulo" or "Asia/Kolkata".',
    ],
    [
      { timezone: 42 },
      'Argument "timezone" must be a string (IANA time zone name, e.g. "America/Sao_Paulo". Default "UTC"), got number 42.',
    ],
    [
      { locale: 'not a locale' },
      'Unknown or unsupported locale "not a locale". Use a BCP 47 tag such as "en-US", "pt-BR" or "ja-JP".',
    ],
    [
      { locale: 'xx-QQ' },
      'Unknown or unsupported locale "xx-QQ". Use a BCP 47 tag such as "en-US", "pt-BR" or "ja-JP".',
    ],
    [
      { locale: true },
      'Argument "locale" must be a string (BCP 47 locale for the localized text, e.g. "pt-BR". Default "en-US"), got boolean true.',
    ],
  ])('%p is validation_failed', async (args, message) => {
    expect(await executeTool('get_current_datetime', args, context)).toEqual({
      ok: false,
      error: { classification: 'validation_failed', message },
    });
  });
});
