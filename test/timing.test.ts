/** test/timing.ts: a stopwatch widens a bound by the time the event loop could not run, and only by that. */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { stopwatch } from "./timing.js";

describe("stopwatch", () => {
  it("widens a bound by the event loop's stall: a loop blocked for 300 ms does not break a 100 ms bound", async () => {
    const clock = stopwatch();
    await sleep(20);
    const until = performance.now() + 300;
    while (performance.now() < until);
    await sleep(20);
    expect(clock.stall()).toBeGreaterThanOrEqual(250);
    clock.within(100, "a blocked loop", undefined, 1_000);
  });

  it("still fails a bound missed while the loop was free", async ({ skip }) => {
    const clock = stopwatch();
    await sleep(400);
    skip(clock.stall() > 200, `the machine held this process up ${Math.round(clock.stall())} ms while it slept`);
    expect(() => clock.within(100, "a free loop", undefined, Infinity)).toThrow(/a free loop: took \d+ ms, bound 100 ms/);
  });
});
