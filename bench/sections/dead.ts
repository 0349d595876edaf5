/**
 * 3. Dead server: how long a call takes to fail once the HTTP server behind it is gone
 * (its port closed, so every request is refused). Every subject connected while the
 * server was up; then the server stops.
 */
import { ToolMessage } from "@langchain/core/messages";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import type { McpToolkit, McpToolkitConfig } from "../../src/index.js";
import { fmt, type SectionResult } from "../model.js";
import type { BenchContext } from "../context.js";
import type { Ours } from "../ours.js";
import { connectHttp, startHttpChild } from "../servers.js";
import { interleave, latencyStats, type Subject } from "../stats.js";
import { toolCall } from "../subjects.js";
import { listenerWarningCount } from "../warnings.js";

const args = { text: "hello" };

async function oursHttp(ours: Ours, url: URL, extra: Partial<McpToolkitConfig>): Promise<McpToolkit> {
  return ours.McpToolkit.connect({ ...extra, servers: { s: { transport: "http", url } }, retry: { retries: 0 } });
}

/** Our error text, checked to carry the expected reason so a wrong failure is not timed. */
function expectReason(reason: string): (result: unknown) => void {
  return (result) => {
    const text = result instanceof ToolMessage ? String(result.content) : String(result);
    if (!text.includes(`(${reason})`)) throw new Error(`Expected ${reason}, got: ${text.slice(0, 200)}`);
  };
}

export async function deadServer({ plan, ours, cleanup }: BenchContext): Promise<SectionResult> {
  const server = await startHttpChild("bench-dead");
  cleanup(server.close);
  const url = server.url;

  // A breaker that, once open, stays open for the whole section.
  const open = await oursHttp(ours, url, { breaker: { failureThreshold: 5, halfOpenAfterMs: 10 * 60_000, initialHalfOpenAfterMs: 10 * 60_000 } });
  const closed = await oursHttp(ours, url, { breaker: { enabled: false } });
  const adapters = new MultiServerMCPClient({ mcpServers: { s: { transport: "http", url: url.href, reconnect: { enabled: false } } } });
  const raw = await connectHttp(url);
  cleanup(() => open.close());
  cleanup(() => closed.close());
  cleanup(() => adapters.close());
  cleanup(raw.close);
  const adapterTool = (await adapters.getTools()).find((t) => t.name === "echo")!;
  const openTool = open.getTool("echo")!;
  const closedTool = closed.getTool("echo")!;

  await server.close();
  for (let i = 0; i < 5; i++) await openTool.invoke(args);
  expectReason("circuit_open")(await openTool.invoke(args));

  const subjects: Subject[] = [
    {
      name: "raw callTool (reference)",
      call: () => raw.client.callTool({ name: "echo", arguments: args }).then(() => "succeeded", (e: unknown) => String(e)),
      check: (r) => {
        if (r === "succeeded") throw new Error("The dead server answered.");
      },
    },
    {
      name: "adapters (catch + String)",
      call: (i) => adapterTool.invoke(toolCall("echo", args, i)).then(() => "succeeded", (e: unknown) => String(e)),
      check: (r) => {
        if (r === "succeeded") throw new Error("The dead server answered.");
      },
    },
    { name: "ours, circuit closed (breaker off)", call: (i) => closedTool.invoke(toolCall("echo", args, i)), check: expectReason("connection_refused") },
    { name: "ours, circuit open", call: (i) => openTool.invoke(toolCall("echo", args, i)), check: expectReason("circuit_open") },
  ];
  // Node's listener warnings, counted against the subject whose call was running.
  const warnings = new Map<string, number>(subjects.map((s) => [s.name, 0]));
  const counted = subjects.map((s) => ({
    ...s,
    call: async (i: number) => {
      const before = listenerWarningCount();
      const result = await s.call(i);
      warnings.set(s.name, warnings.get(s.name)! + listenerWarningCount() - before);
      return result;
    },
  }));
  const samples = await interleave(counted, { ...plan.dead, warmupRounds: 1 });
  const stats = new Map([...samples].map(([k, v]) => [k, latencyStats(v.calls)]));
  const get = (i: number) => stats.get(subjects[i]!.name)!;
  const rows = subjects.map((s, i) => [s.name, fmt(get(i).medianUs), fmt(get(i).p99Us), fmt(get(i).medianUs / get(1).medianUs, 2), String(warnings.get(s.name))]);
  const openUs = get(3).medianUs;
  const examples = [
    `adapters: \`${String(await adapterTool.invoke(args).catch((e: unknown) => e)).slice(0, 200)}\``,
    `ours, circuit closed: \`${String(await closedTool.invoke(args)).slice(0, 220)}\``,
    `ours, circuit open: \`${String(await openTool.invoke(args)).slice(0, 220)}\``,
  ];
  return {
    title: "3. Dead server (time for a call to fail)",
    method:
      `Streamable HTTP on 127.0.0.1 to the bench server in a child process; every subject connected, then the process ended. ${plan.dead.rounds} rounds × ${plan.dead.batch} calls per subject, interleaved. ` +
      "Ours with retries: 0 (one failure per call); the open breaker was tripped by 5 refused calls and stays open (halfOpenAfterMs 10 min).",
    tables: [{ headers: ["subject", "median µs", "p99 µs", "× adapters", "listener warnings"], rows }],
    ratios: [
      { label: "dead: ours closed/adapters", value: get(2).medianUs / get(1).medianUs },
      { label: "dead: ours open/adapters", value: openUs / get(1).medianUs },
    ],
    goals: [],
    notes: [
      ...examples,
      "Listener warnings: Node's MaxListenersExceededWarning (over 1500 abort listeners on one AbortSignal) while that subject's calls ran. undici's fetch adds one listener per request " +
        "to the transport's long-lived signal and removes it only when the request is garbage collected, so a client failing fast on one transport piles them up until a GC.",
    ],
  };
}
