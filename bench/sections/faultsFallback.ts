/**
 * Part of "Under faults": a server that fails 40% of its calls (503 before the tool runs, dealt
 * by the seeded draw) with a healthy fallback server, both proxies in front of the same server
 * process. Ours with a breaker that opens on a failure rate, and `fallback` to the healthy one:
 * how many calls succeed, and how many requests the calls made once the breaker's window has
 * filled still send to the failing server (tools/call requests counted at its proxy). Each
 * breaker setting of `BREAKERS` runs once; the goals are judged on the last.
 */
import type { BreakerOptions } from "../../src/index.js";
import { failingMix } from "../faultMix.js";
import { failureText, runBatch, type BatchPlan, type BatchResult } from "../faultRun.js";
import { atLeast, atMost, GOALS } from "../goals.js";
import { fmt, type Goal, type Table } from "../model.js";
import type { Ours } from "../ours.js";
import type { ProxyHost } from "../proxies.js";

/** The failing server's share of failed calls. */
export const FAILING_SHARE = 0.4;

/** The breaker settings measured, each with what it is; the goals are judged on the last. */
export const BREAKERS: readonly { label: string; breaker: BreakerOptions }[] = [
  { label: "a 30% failure rate, every other option its default", breaker: { failureRate: 0.3 } },
  {
    label: "a 30% failure rate, and a first open period of 10 s: the breaker's test (a single call: a circuit a rate opened is not pinged) comes seldom, and a server failing 40% of calls passes 60% of them, each closing the circuit and emptying its window",
    breaker: { failureRate: 0.3, initialHalfOpenAfterMs: 10_000 },
  },
];

/** The window's size: the calls after this many settled are the ones the goal counts. */
const WINDOW_CALLS = 20;

interface Measured {
  run: BatchResult;
  /** Calls made once the window had filled, the requests they sent to the failing server, and how many of them sent any. */
  callsAfter: number;
  sentAfter: number;
  reachingAfter: number;
  sentAll: number;
  events: Map<string, number>;
}

async function measure(ours: Ours, host: ProxyHost, upstream: URL, plan: BatchPlan, seed: number, breaker: BreakerOptions): Promise<Measured> {
  const failing = await host.start(upstream, failingMix(FAILING_SHARE), seed);
  const healthy = await host.start(upstream, [], seed);
  const events = new Map<string, number>();
  try {
    const toolkit = await ours.McpToolkit.connect({
      servers: {
        primary: { transport: "http", url: failing.url, trustAnnotations: true, fallback: "backup", breaker },
        backup: { transport: "http", url: healthy.url, trustAnnotations: true, exposeTools: false },
      },
      onEvent: (e) => void events.set(e.type, (events.get(e.type) ?? 0) + 1),
    });
    try {
      const run = await runBatch(toolkit.getTool("lookup")!, { ...plan, settledMark: WINDOW_CALLS });
      const keys = (await failing.toolCallKeys()).map(Number);
      const after = keys.filter((k) => k >= run.markQuery);
      return { run, callsAfter: 2 * (plan.first + plan.queries - run.markQuery), sentAfter: after.length, reachingAfter: new Set(after).size, sentAll: keys.length, events };
    } finally {
      await toolkit.close();
    }
  } finally {
    await failing.close();
    await healthy.close();
  }
}

const success = (m: Measured): number => m.run.succeeded / m.run.calls;
const primaryShare = (m: Measured): number => m.sentAfter / Math.max(1, m.callsAfter);

export interface FallbackRun {
  table: Table;
  /** The README's short form. */
  readme: Table;
  goals: Goal[];
  notes: string[];
}

export async function failingWithFallback(ours: Ours, host: ProxyHost, upstream: URL, plan: BatchPlan, seed: number): Promise<FallbackRun> {
  const all: Measured[] = [];
  for (const { breaker } of BREAKERS) all.push(await measure(ours, host, upstream, plan, seed, breaker));
  const judged = all.at(-1)!;
  const eventText = (m: Measured) => ["circuit_open", "half_open", "circuit_close", "retry", "fallback"].map((t) => `${t} ${m.events.get(t) ?? 0}`).join(", ");
  const setting = (i: number) => `\`${JSON.stringify(BREAKERS[i]!.breaker)}\`: ${BREAKERS[i]!.label}`;
  return {
    table: {
      headers: ["breaker", "calls", "succeeded", "answered by the fallback", "requests to the failing server", "calls once the window filled", "their requests there", "per call", "failures", "ours' events"],
      rows: all.map((m, i) => [
        setting(i),
        String(m.run.calls),
        `${fmt(100 * success(m), 2)}%`,
        String(m.run.byFallback),
        String(m.sentAll),
        String(m.callsAfter),
        String(m.sentAfter),
        fmt(primaryShare(m), 3),
        failureText(m.run.failures),
        eventText(m),
      ]),
    },
    readme: {
      headers: ["breaker", "succeeded", "answered by the fallback", "requests to the failing server per call, once the window filled"],
      rows: all.map((m, i) => [`\`${JSON.stringify(BREAKERS[i]!.breaker)}\``, `${fmt(100 * success(m), 2)}%`, String(m.run.byFallback), fmt(primaryShare(m), 3)]),
    },
    goals: [
      atLeast(`a server failing ${FAILING_SHARE * 100}% of calls, with a fallback server: share of calls that succeed`, success(judged), GOALS.fallbackSuccess),
      atMost(`... once the breaker's window (${WINDOW_CALLS} calls) has filled: requests to the failing server per call`, primaryShare(judged), GOALS.fallbackPrimaryShare, ""),
    ],
    notes: all.map(
      (m, i) =>
        `Breaker ${setting(i)}: the window filled (${WINDOW_CALLS} calls settled) when query ${m.run.markQuery} was next; ${m.reachingAfter} of the ${m.callsAfter} calls after it sent at least one request to the failing server.`,
    ),
  };
}
