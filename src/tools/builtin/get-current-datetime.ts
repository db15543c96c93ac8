/**
 * get_current_datetime (docs/tools.md, "get_current_datetime"): the current instant in a requested IANA time
 * zone and BCP 47 locale. Invalid zones and locales are refused by name rather than replaced by UTC or
 * en-US, which would hand the model a plausible wrong answer.
 */
import { Type } from '@sinclair/typebox';
import type { JsonSchema } from '../../contracts/json-schema.ts';
import { defineTool } from '../define-tool.ts';
import { ToolArgumentError } from '../errors.ts';
import { registerTool } from '../registry.ts';
import { readOnlyLocalTraits } from '../tool-traits.ts';

export interface CurrentDateTimeResult {
  /** The instant in UTC, ISO 8601 with milliseconds (`2026-11-30T05:59:01.000Z`). */
  isoUtc: string;
  unixMs: number;
  /** The canonical zone name (`utc` → `UTC`). */
  timezone: string;
  /** The canonical locale tag (`pt-br` → `pt-BR`). */
  locale: string;
  /** Full date and long time in the locale's own words. */
  localDateTime: string;
  /** Offset from UTC at that instant, as Intl's `shortOffset` spells it: `GMT-3`, `GMT+5:30`, `GMT+0`. */
  offset: string;
}

function resolveTimeZone(timezone: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    throw new ToolArgumentError(
      `Unknown time zone ${JSON.stringify(timezone)}. Use an IANA time zone name such as "UTC", "America/Sao_Paulo" or "Asia/Kolkata".`,
    );
  }
}

function resolveLocale(locale: string): string {
  let canonical: string | undefined;
  try {
    canonical = Intl.getCanonicalLocales(locale)[0];
  } catch {
    canonical = undefined;
  }
  if (canonical === undefined || Intl.DateTimeFormat.supportedLocalesOf([canonical]).length === 0) {
    throw new ToolArgumentError(
      `Unknown or unsupported locale ${JSON.stringify(locale)}. Use a BCP 47 tag such as "en-US", "pt-BR" or "ja-JP".`,
    );
  }
  return canonical;
}

/** The shape of every {@link CurrentDateTimeResult}, told to MCP clients as the tool's outputSchema. */
export const CURRENT_DATETIME_OUTPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    isoUtc: { type: 'string', description: 'The instant in UTC, ISO 8601 with milliseconds.' },
    unixMs: { type: 'integer', description: 'The instant in Unix milliseconds.' },
    timezone: { type: 'string', description: 'The IANA time zone used.' },
    locale: { type: 'string', description: 'The canonical BCP 47 locale used.' },
    localDateTime: { type: 'string', description: 'The date and time in that zone and locale.' },
    offset: { type: 'string', description: 'The UTC offset in that zone, e.g. "GMT-3".' },
  },
  required: ['isoUtc', 'unixMs', 'timezone', 'locale', 'localDateTime', 'offset'],
  additionalProperties: false,
};

/** Pure: the result for a given instant, zone and locale. */
export function describeInstant(unixMs: number, timezone: string, locale: string): CurrentDateTimeResult {
  const timeZone = resolveTimeZone(timezone);
  const canonicalLocale = resolveLocale(locale);
  const instant = new Date(unixMs);
  const localDateTime = new Intl.DateTimeFormat(canonicalLocale, {
    timeZone,
    dateStyle: 'full',
    timeStyle: 'long',
  }).format(instant);
  const offset =
    new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'shortOffset' })
      .formatToParts(instant)
      .find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  return {
    isoUtc: instant.toISOString(),
    unixMs,
    timezone: timeZone,
    locale: canonicalLocale,
    localDateTime,
    offset,
  };
}

export const getCurrentDatetimeTool = defineTool({
  name: 'get_current_datetime',
  description:
    'Returns the current date and time: ISO UTC, Unix milliseconds, the localized date and time, and the UTC offset in the requested time zone.',
  parameters: Type.Object({
    timezone: Type.Optional(
      Type.String({
        description: 'IANA time zone name, e.g. "America/Sao_Paulo". Default "UTC".',
        minLength: 1,
        maxLength: 100,
      }),
    ),
    locale: Type.Optional(
      Type.String({
        description: 'BCP 47 locale for the localized text, e.g. "pt-BR". Default "en-US".',
        minLength: 1,
        maxLength: 100,
      }),
    ),
  }),
  traits: readOnlyLocalTraits('json'),
  outputSchema: CURRENT_DATETIME_OUTPUT_SCHEMA,
  title: 'Current date and time',
  summary: 'Lets the model know the current date and time in any time zone.',
  category: 'system',
  enabledByDefault: true,
  canDisable: true,
  execute: async (args, context): Promise<CurrentDateTimeResult> =>
    describeInstant(context.now(), args.timezone ?? 'UTC', args.locale ?? 'en-US'),
});

registerTool(getCurrentDatetimeTool);
