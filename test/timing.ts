/**
 * The one way a test bounds wall-clock time. On a loaded 2-core machine a process can be kept
 * off the CPU for seconds, and a bound that holds on a quiet machine then fails for a reason
 * that has nothing to do with the code under test. A stopwatch measures that: while it runs, a
 * `monitorEventLoopDelay` timer (every 10 ms) records how late this process's event loop ran,
 * and a bound is widened by the total lateness (the stall), up to what the assertion tolerates
 * (by default the bound itself: at most doubled; less where a wider bound would let the fault
 * the test looks for through). A bound missed while the stall was over that skips the test with
 * a message instead of failing it: the run cannot tell a slow machine from slow code.
 *
 *   const clock = stopwatch();
 *   await somethingThatShouldBeQuick();
 *   clock.within(2_000, "close() settles the waiting calls");
 *
 * Synchronous work blocks the loop it would be measured by: bound its CPU time instead, which a
 * busy machine does not stretch: `clock.within(2_000, "cutting 1 MB", clock.cpu())`.
 *
 * Start it synchronously at the top of the test (or where the measured interval starts): it
 * remembers the test it belongs to, to skip that one.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { expect, onTestFinished, TestRunner } from "vitest";

const RESOLUTION_MS = 10;

export interface Stopwatch {
  /** Milliseconds since the stopwatch started. */
  elapsed(): number;
  /** CPU milliseconds (user and system) this process used since the stopwatch started. */
  cpu(): number;
  /** Milliseconds this process's event loop ran late since the stopwatch started (CPU it did not get, or a blocked loop). */
  stall(): number;
  /**
   * Expects `ms` (by default the time since the start) under `boundMs` plus the stall, counted
   * up to `tolerance` (by default `boundMs`). A miss while the stall is over `tolerance` skips
   * the test, saying why.
   */
  within(boundMs: number, what: string, ms?: number, tolerance?: number): void;
}

export function stopwatch(): Stopwatch {
  const test = TestRunner.getCurrentTest();
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const started = performance.now();
  const cpuAtStart = process.cpuUsage();
  let stopped = false;
  const stop = (): void => {
    if (!stopped) histogram.disable();
    stopped = true;
  };
  if (test) onTestFinished(stop);
  // Each sample is one interval between timer ticks (at least RESOLUTION_MS); the lateness is what exceeds it.
  const stall = (): number => (histogram.count === 0 ? 0 : Math.max(0, (histogram.mean * histogram.count) / 1e6 - histogram.count * RESOLUTION_MS));
  return {
    elapsed: () => performance.now() - started,
    cpu: () => {
      const used = process.cpuUsage(cpuAtStart);
      return (used.user + used.system) / 1000;
    },
    stall,
    within(boundMs, what, ms = performance.now() - started, tolerance = boundMs) {
      const late = stall();
      const widened = boundMs + Math.min(late, tolerance);
      if (ms < widened) return;
      const why = `${what}: took ${Math.round(ms)} ms, bound ${boundMs} ms + ${Math.round(late)} ms event-loop stall`;
      if (late > tolerance && test) {
        stop();
        test.context.skip(`skipped, the machine is too loaded to time this: ${why} (over the ${tolerance} ms this bound tolerates)`);
      }
      expect(ms, why).toBeLessThan(widened);
    },
  };
}
