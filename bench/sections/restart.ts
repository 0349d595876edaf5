/**
 * 4b. HTTP restart: the server (in its own process) forgets every session, closes every
 * socket and listens again on the same port, as a redeploy does. Timed from the moment it is
 * back to the end of ours' first successful call, calling again at once after each failure.
 */
import type { BenchContext } from "../context.js";
import { atMost, GOALS } from "../goals.js";
import { fmt, type SectionResult } from "../model.js";
import { startHttpChild } from "../servers.js";
import { delay, median, quantile } from "../stats.js";
import { textOf } from "../subjects.js";

const args = { text: "hello" };
/** Trials in a row that did not recover, after which the section stops trying. */
const GIVE_UP_AFTER = 3;

export async function httpRestart({ plan, ours, cleanup }: BenchContext): Promise<SectionResult> {
  const { trials, deadlineMs } = plan.restart;
  const server = await startHttpChild("bench-restart");
  cleanup(server.close);
  const toolkit = await ours.McpToolkit.connect({ servers: { s: { transport: "http", url: server.url } } });
  cleanup(() => toolkit.close());
  const echo = toolkit.getTool("echo")!;
  const succeeds = async () => textOf(await echo.invoke(args).catch((e: unknown) => e)) === "hello";
  /** From `since`, calls until one succeeds: the time it took and the failed calls, or undefined past the deadline. */
  const untilSuccess = async (since: number): Promise<{ ms: number | undefined; failed: number }> => {
    let failed = 0;
    while (performance.now() - since < deadlineMs) {
      if (await succeeds()) return { ms: performance.now() - since, failed };
      failed++;
    }
    return { ms: undefined, failed };
  };

  const times: (number | undefined)[] = [];
  const failedCalls: number[] = [];
  let lastError = "";
  for (let trial = 0; trial < trials; trial++) {
    // A client that stays broken is reported, not waited on trial after trial.
    if (times.length >= GIVE_UP_AFTER && times.slice(-GIVE_UP_AFTER).every((t) => t === undefined)) break;
    if ((await untilSuccess(performance.now())).ms === undefined) {
      times.push(undefined);
      continue;
    }
    await delay(50);
    const r = await untilSuccess(await server.restart());
    times.push(r.ms);
    failedCalls.push(r.failed);
    if (r.ms === undefined) lastError = textOf(await echo.invoke(args)).slice(0, 300);
  }
  const ok = times.filter((x): x is number => x !== undefined);
  // A trial that never recovered counts as slower than any that did.
  const p50 = quantile(times.map((t) => t ?? Number.POSITIVE_INFINITY), 0.5);
  return {
    title: "4b. Recovery after an HTTP server restart",
    method:
      `The bench server over streamable HTTP in a child process; one toolkit with default policies (\`transport: "http"\`) for all ${trials} trials. ` +
      "Each trial: echo works; the server forgets its sessions, closes its sockets and listens again on the same port; from the moment it says it is back, ours calls echo, " +
      `again at once after each failed call, until one succeeds (at most ${deadlineMs} ms).`,
    tables: [
      {
        headers: ["subject", "p50 ms", "p90 ms", "max ms", "recovered", "failed calls before success (median)", "each trial, ms"],
        rows: [
          [
            "ours",
            fmt(median(ok), 1),
            fmt(quantile(ok, 0.9), 1),
            fmt(Math.max(...ok), 1),
            `${ok.length}/${times.length}${times.length < trials ? ` (stopped after ${GIVE_UP_AFTER} in a row did not recover)` : ""}`,
            fmt(median(failedCalls), 0),
            times.map((x) => (x === undefined ? "—" : fmt(x, 0))).join(", "),
          ],
        ],
      },
    ],
    ratios: [],
    goals: [atMost("HTTP restart recovery, ours: p50", p50, GOALS.restartP50Ms, "ms")],
    notes: lastError ? [`The last call of a trial that did not recover answered: \`${lastError}\``] : [],
  };
}
