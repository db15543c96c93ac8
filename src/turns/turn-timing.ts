/**
 * How long a turn lease lasts and how often its holder renews it, polls for a cancel, and retries a
 * failed write. One lease period bounds how long a chat stays busy after its instance died or was cut
 * off; the renewal interval bounds how long a paused instance keeps going after it resumes.
 */
import { defaultOf } from '../config/environment-variables.ts';
export interface TurnTiming {
  leaseMilliseconds: number;
  renewMilliseconds: number;
  cancelPollMilliseconds: number;
  retryMilliseconds: number;
  /** How often a client following a turn another instance runs looks for new events. */
  followPollMilliseconds: number;
}

/** Default of `MANGO_TURN_LEASE_MS`. */
export const DEFAULT_TURN_LEASE_MILLISECONDS = defaultOf('MANGO_TURN_LEASE_MS');

/** The timing for a lease of `leaseMilliseconds`: renewed three times per lease. */
export function turnTimingFor(leaseMilliseconds: number = DEFAULT_TURN_LEASE_MILLISECONDS): TurnTiming {
  return {
    leaseMilliseconds,
    renewMilliseconds: Math.max(50, Math.floor(leaseMilliseconds / 3)),
    cancelPollMilliseconds: Math.min(400, Math.max(50, Math.floor(leaseMilliseconds / 5))),
    retryMilliseconds: Math.min(250, Math.max(20, Math.floor(leaseMilliseconds / 20))),
    followPollMilliseconds: 150,
  };
}
