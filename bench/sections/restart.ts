/**
 * 4b. HTTP restart: the server (in its own process) forgets every session, closes every
 * socket and listens again on the same port, as a redeploy does. Timed from the moment it is
 * back to the end of a subject's first successful call, calling again at once after each
 * failure. Subjects: ours with default policies, and a floor that reconnects as simply as a
 * LangChain tool over the v2 SDK client can (see `reconnectingFloor`). The guard (issue 45): ours'
 * p50 at most the floor's p50 plus 30 ms.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { BenchContext } from "../context.js";
import { FloorTool, type CallTool } from "../floor.js";
import { GUARDS } from "../goals.js";
import { fmt, type SectionResult } from "../model.js";
import { connectHttpV2, startHttpChild } from "../servers.js";
import { delay, median, quantile, rotate } from "../stats.js";
import { textOf } from "../subjects.js";

const args = { text: "hello" };
/** Trials in a row that did not recover, after which a subject stops being tried. */
const GIVE_UP_AFTER = 3;

/**
 * The LangChain floor's `echo` (a bare StructuredTool, section 1) over a v2 SDK client
 * (`@modelcontextprotocol/client`, the line ours runs on) that reconnects as simply as it can:
 * when a call throws, it drops that client, connects a new one (a new session: `initialize`
 * and `notifications/initialized`) and makes the call once more on it. No backoff, no
 * classification, no breaker; a failure of the second try goes to the caller.
 */
async function reconnectingFloor(url: URL): Promise<{ tool: FloorTool; close: () => Promise<void> }> {
  let current = await connectHttpV2(url);
  const { tools } = await current.client.listTools();
  const echo = tools.find((t) => t.name === "echo");
  if (!echo) throw new Error("The bench server lists no echo tool.");
  const send: CallTool = async (params, options) => {
    try {
      return (await current.client.callTool(params, options)) as CallToolResult;
    } catch {
      const stale = current;
      current = await connectHttpV2(url);
      void stale.close().catch(() => undefined);
      return (await current.client.callTool(params, options)) as CallToolResult;
    }
  };
  return { tool: new FloorTool(send, echo as Tool), close: () => current.close() };
}

interface Trials {
  name: string;
  call: () => Promise<unknown>;
  times: (number | undefined)[];
  failed: number[];
  lastError: string;
}

export async function httpRestart({ plan, ours, cleanup }: BenchContext): Promise<SectionResult> {
  const { trials, deadlineMs } = plan.restart;
  const server = await startHttpChild("bench-restart");
  cleanup(server.close);
  const toolkit = await ours.McpToolkit.connect({ servers: { s: { transport: "http", url: server.url } } });
  cleanup(() => toolkit.close());
  const echo = toolkit.getTool("echo")!;
  const floor = await reconnectingFloor(server.url);
  cleanup(floor.close);
  const subjects: Trials[] = [
    { name: "floor", call: () => floor.tool.invoke(args), times: [], failed: [], lastError: "" },
    { name: "ours", call: () => echo.invoke(args), times: [], failed: [], lastError: "" },
  ];
  const succeeds = async (s: Trials) => textOf(await s.call().catch((e: unknown) => e)) === "hello";
  /** From `since`, calls until one succeeds: the time it took and the failed calls, or undefined past the deadline. */
  const untilSuccess = async (s: Trials, since: number): Promise<{ ms: number | undefined; failed: number }> => {
    let failed = 0;
    while (performance.now() - since < deadlineMs) {
      if (await succeeds(s)) return { ms: performance.now() - since, failed };
      failed++;
    }
    return { ms: undefined, failed };
  };

  // Each trial restarts the server once per subject, the order alternating, so each subject
  // recovers from a restart of its own and the other subject's calls are not in its time.
  for (let trial = 0; trial < trials; trial++) {
    for (const s of rotate(subjects, trial)) {
      // A client that stays broken is reported, not waited on trial after trial.
      if (s.times.length >= GIVE_UP_AFTER && s.times.slice(-GIVE_UP_AFTER).every((t) => t === undefined)) continue;
      if ((await untilSuccess(s, performance.now())).ms === undefined) {
        s.times.push(undefined);
        continue;
      }
      await delay(50);
      const r = await untilSuccess(s, await server.restart());
      s.times.push(r.ms);
      s.failed.push(r.failed);
      if (r.ms === undefined) s.lastError = textOf(await s.call().catch((e: unknown) => e)).slice(0, 300);
    }
  }
  // A trial that never recovered counts as slower than any that did.
  const p50Of = (s: Trials) => quantile(s.times.map((t) => t ?? Number.POSITIVE_INFINITY), 0.5);
  const [floorTrials, oursTrials] = subjects as [Trials, Trials];
  const rows = subjects.map((s) => {
    const ok = s.times.filter((x): x is number => x !== undefined);
    return [
      s.name,
      fmt(p50Of(s), 1),
      fmt(quantile(ok, 0.9), 1),
      fmt(Math.max(...ok), 1),
      `${ok.length}/${s.times.length}${s.times.length < trials ? ` (stopped after ${GIVE_UP_AFTER} in a row did not recover)` : ""}`,
      fmt(median(s.failed), 0),
      s.times.map((x) => (x === undefined ? "—" : fmt(x, 0))).join(", "),
    ];
  });
  const oursP50 = p50Of(oursTrials);
  const floorP50 = p50Of(floorTrials);
  const max = floorP50 + GUARDS.restartOverFloorMs;
  return {
    title: "4b. Recovery after an HTTP server restart",
    method:
      `The bench server over streamable HTTP in a child process. Ours: one toolkit with default policies (\`transport: "http"\`). ` +
      "Floor: the LangChain floor's `echo` (section 1's bare StructuredTool) over a v2 SDK client (`@modelcontextprotocol/client`, the line ours runs on) that reconnects as simply as it can: when a call throws, it drops that client, connects a new one (a new session) and makes the call once more; no backoff, no classification, no breaker. " +
      `${trials} trials; each restarts the server once for each subject, the order alternating. For each: the subject's echo works; the server forgets its sessions, closes its sockets and listens again on the same port; from the moment it says it is back, the subject calls echo, ` +
      `again at once after each failed call, until one succeeds (at most ${deadlineMs} ms). The guard (issue 45): ours' p50 at most the floor's p50 + ${GUARDS.restartOverFloorMs} ms.`,
    tables: [{ headers: ["subject", "p50 ms", "p90 ms", "max ms", "recovered", "failed calls before success (median)", "each trial, ms"], rows }],
    ratios: [],
    goals: [
      {
        kind: "guard",
        goal: `HTTP restart recovery p50: ours ≤ floor + ${GUARDS.restartOverFloorMs} ms`,
        figure: `ours ${fmt(oursP50, 1)} ms, floor ${fmt(floorP50, 1)} ms (bound ${fmt(max, 1)} ms)`,
        pass: oursP50 <= max,
      },
    ],
    notes: subjects.filter((s) => s.lastError).map((s) => `The last call of a ${s.name} trial that did not recover answered: \`${s.lastError}\``),
  };
}
