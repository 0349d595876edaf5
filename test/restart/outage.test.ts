/**
 * A restart is one event, not sixteen (issue 33, item 5). server-everything over streamable
 * HTTP, the toolkit's defaults, 16 idempotent reads in flight when the server is killed (-9) and
 * 16 more calls (8 reads, 8 non-idempotent writes) made while nothing listens; the server is
 * back on the same port after 0.3, 1.5 and 3 s, in turn. Every call must succeed within its
 * timeout, and every write run once. Before, a refused connection spent one of a call's three
 * attempts each time the breaker let it test the server, so in a 1.5 s or 3 s outage some calls
 * gave up (`connection_refused` after 3 attempts) while their neighbours waited and succeeded;
 * and the retry budget (10 + 20 % of the attempts in 10 s) could read the burst of retries of
 * the reads cut off by the kill as a storm ("the server's retry budget is spent").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TIMEOUT_MS } from "../../src/config/index.js";
import { startOutages, type OutageResult, type OutageRun } from "./outage.js";
import { stopwatch } from "../timing.js";

let run: OutageRun;
beforeAll(async () => {
  run = await startOutages(16);
});
afterAll(() => run?.close());

/** One line per outage, printed after the run: what the numbers were. */
const summary: string[] = [];
afterAll(() => {
  if (summary.length) console.log(summary.join("\n"));
});

function summarize(r: OutageResult): string {
  const ok = r.calls.filter((c) => c.ok).length;
  const slowest = Math.max(...r.calls.map((c) => c.end! - c.start));
  const lastEnd = Math.max(...r.calls.map((c) => c.end!));
  const retries = new Map<string, number>();
  for (const e of r.events) if (e.type === "retry") retries.set(e.error.reason, (retries.get(e.error.reason) ?? 0) + 1);
  const byReason = [...retries].map(([reason, n]) => `${reason} ${n}`).join(", ");
  return `down ${r.downMs} ms: ${ok}/${r.calls.length} succeeded, slowest call ${Math.round(slowest)} ms, last one ${Math.round(lastEnd - r.upAt)} ms after the server listened; retries: ${byReason}`;
}

const failures = (r: OutageResult) => r.calls.filter((c) => !c.ok).map((c) => `${c.id} (${c.op}): ${c.error?.reason} after ${c.error?.attempts} attempts, ${Math.round(c.end! - c.start)} ms: ${c.error?.message}`);

describe("parallel calls that meet the same restart, with the default settings", () => {
  it("all succeed within their timeout, in outages of 0.3, 1.5 and 3 s, and each write runs once", async () => {
    for (const downMs of [300, 1500, 3000]) {
      const clock = stopwatch();
      const r = await run.outage(downMs);
      summary.push(summarize(r));
      expect(r.calls, `${downMs} ms: the calls`).toHaveLength(32);
      // Calls were in flight at the kill, and the others were made while nothing listened.
      expect(r.calls.filter((c) => c.wave === "inflight" && c.start < r.faultAt), `${downMs} ms: in flight at the kill`).toHaveLength(16);
      expect(r.calls.filter((c) => c.wave === "unsent" && c.start >= r.deadAt && c.start < r.upAt), `${downMs} ms: made while down`).toHaveLength(16);
      expect(failures(r), `${downMs} ms: failed calls`).toEqual([]);
      for (const c of r.calls) clock.within(DEFAULT_TIMEOUT_MS, `${downMs} ms: ${c.id}'s duration`, c.end! - c.start);
      const writes = r.calls.filter((c) => c.op === "write");
      expect(writes.map((c) => `${c.id}: ${r.executions.get(c.id) ?? 0}`), `${downMs} ms: executions of each write`).toEqual(writes.map((c) => `${c.id}: 1`));
    }
  }, 120_000);
});
