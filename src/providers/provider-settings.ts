/**
 * The operator settings every provider request follows: the stall limits and the retry policy
 * (`MANGO_PROVIDER_FIRST_EVENT_TIMEOUT_SECONDS`, `MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS`,
 * `MANGO_PROVIDER_MAX_RETRIES`, `MANGO_PROVIDER_RETRY_MAX_WAIT_SECONDS`), whose defaults and bounds are
 * declared in `config/environment-variables.ts`. A malformed value stops the server at startup with a
 * message naming the variable, what it expects and what it got; it never silently becomes the default.
 */
import { type Environment, readVariable } from '../config/environment-variables.ts';
import type { StreamTimeouts } from './stream-watch.ts';

export interface ProviderStreamSettings {
  timeouts: StreamTimeouts;
  maxRetries: number;
  maxRetryWaitSeconds: number;
}

/** @throws ConfigError naming the variable when a value is malformed. */
export function readProviderStreamSettings(env: Environment): ProviderStreamSettings {
  return {
    timeouts: {
      firstEventMs: readVariable(env, 'MANGO_PROVIDER_FIRST_EVENT_TIMEOUT_SECONDS') * 1000,
      idleMs: readVariable(env, 'MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS') * 1000,
    },
    maxRetries: readVariable(env, 'MANGO_PROVIDER_MAX_RETRIES'),
    maxRetryWaitSeconds: readVariable(env, 'MANGO_PROVIDER_RETRY_MAX_WAIT_SECONDS'),
  };
}
