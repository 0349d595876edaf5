/**
 * How long a server's circuit stays open: the one rule of the process's breaker
 * (CircuitBreaker) and of the fleet's (src/fleet), so the two never drift apart.
 */
import type { DEFAULT_BREAKER } from "../config/index.js";

/** The breaker options that decide an open period. */
export type OpenPeriodOptions = Pick<typeof DEFAULT_BREAKER, "initialHalfOpenAfterMs" | "halfOpenAfterMs" | "halfOpenJitter">;

/**
 * The length of one opening, in milliseconds: `initialHalfOpenAfterMs` for the first since the
 * circuit last closed (`trips` 0), twice the last after each failed test, up to
 * `halfOpenAfterMs`, times a random factor between 1 and 1 + `halfOpenJitter` so that callers
 * that opened together do not all test together. A server that refused the connection
 * (`refused`) keeps the first period: testing it costs it nothing (nothing listens), and it
 * may be back any moment.
 */
export function openPeriodMs(options: OpenPeriodOptions, trips: number, refused: boolean, random: () => number = Math.random): number {
  const { initialHalfOpenAfterMs, halfOpenAfterMs, halfOpenJitter } = options;
  let period = Math.min(halfOpenAfterMs, initialHalfOpenAfterMs * 2 ** Math.min(trips, 30));
  if (refused) period = Math.min(period, initialHalfOpenAfterMs);
  return period * (1 + random() * halfOpenJitter);
}
