/**
 * The operator settings every provider request follows, read from the environment next to the provider
 * keys: the stall limits and the retry policy. A malformed value stops the server at startup with a
 * message naming the variable, what it expects and what it got; it never silently becomes the default.
 *
 * | variable                                     | meaning                                      | default |
 * |----------------------------------------------|----------------------------------------------|---------|
 * | `MANGO_PROVIDER_FIRST_EVENT_TIMEOUT_SECONDS` | request sent → first byte of the response    | 120     |
 * | `MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS`        | longest silence between two received chunks  | 300     |
 * | `MANGO_PROVIDER_MAX_RETRIES`                 | retries of a transient failure before a stream opened | 2 |
 * | `MANGO_PROVIDER_RETRY_MAX_WAIT_SECONDS`      | longest `Retry-After` waited for             | 60      |
 */
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_WAIT_SECONDS,
  RETRY_MAX_WAIT_VARIABLE,
} from './provider-retry.ts';
import {
  DEFAULT_STREAM_TIMEOUTS,
  FIRST_EVENT_TIMEOUT_VARIABLE,
  IDLE_TIMEOUT_VARIABLE,
  type StreamTimeouts,
} from './stream-watch.ts';

export const MAX_RETRIES_VARIABLE = 'MANGO_PROVIDER_MAX_RETRIES';

export interface ProviderStreamSettings {
  timeouts: StreamTimeouts;
  maxRetries: number;
  maxRetryWaitSeconds: number;
}

/** Longest accepted stall limit or retry wait: one day (anything longer is a typo). */
const MAX_SECONDS = 86_400;

function readInteger(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: number,
  minimum: number,
  maximum: number,
): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < minimum || value > maximum) {
    throw new Error(`${name} must be a whole number from ${minimum} to ${maximum}; got "${raw}".`);
  }
  return value;
}

/** @throws Error naming the variable when a value is malformed. */
export function readProviderStreamSettings(
  env: Readonly<Record<string, string | undefined>>,
): ProviderStreamSettings {
  return {
    timeouts: {
      firstEventMs:
        readInteger(
          env,
          FIRST_EVENT_TIMEOUT_VARIABLE,
          DEFAULT_STREAM_TIMEOUTS.firstEventMs / 1000,
          1,
          MAX_SECONDS,
        ) * 1000,
      idleMs:
        readInteger(env, IDLE_TIMEOUT_VARIABLE, DEFAULT_STREAM_TIMEOUTS.idleMs / 1000, 1, MAX_SECONDS) * 1000,
    },
    maxRetries: readInteger(env, MAX_RETRIES_VARIABLE, DEFAULT_MAX_RETRIES, 0, 10),
    maxRetryWaitSeconds: readInteger(
      env,
      RETRY_MAX_WAIT_VARIABLE,
      DEFAULT_MAX_RETRY_WAIT_SECONDS,
      0,
      MAX_SECONDS,
    ),
  };
}
