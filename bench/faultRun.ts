/**
 * How the "Under faults" section calls a subject: callers in pairs, each pair taking the next
 * query and calling it twice at once (two agents asking the same lookup), then pausing before
 * the next, until the batch's queries are done. Each call is `tool.invoke(toolCall)`, timed
 * whole (the tool's window); every call's window and outcome are kept.
 */
import { ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { lookupReply } from "./server/lookup.js";
import { toolCall } from "./subjects.js";

export interface BatchResult {
  /** Every call's tool window, ms. */
  windowsMs: number[];
  calls: number;
  succeeded: number;
  /** Of the successes, those the fallback server answered. */
  byFallback: number;
  /** Failures by what they said (our reason, or the first words of the error's text). */
  failures: Map<string, number>;
  /** The first query started once `settledMark` calls had settled (the batch's end if never). */
  markQuery: number;
  /** Wall time of the batch, ms. */
  wallMs: number;
  /** CPU this process used during the batch (every thread; the in-process proxy included), ms. */
  cpuMs: number;
}

const words = (text: unknown): string => String(text).replace(/\s+/g, " ").slice(0, 60);

/**
 * What a call ended with: undefined for the tool's answer; else our reason from the artifact, or
 * the start of the failure's text (the floor and the adapters throw).
 */
function failureOf(key: string, result: unknown, thrown: boolean): string | undefined {
  if (thrown || !(result instanceof ToolMessage)) return `threw: ${words(result)}`;
  if (result.status !== "error" && String(result.content).includes(lookupReply(key))) return undefined;
  const reason = (result.artifact as { reason?: unknown } | undefined)?.reason;
  return typeof reason === "string" ? reason : words(result.content);
}

export interface BatchPlan {
  /** The first query (its key), and how many: each is called twice. */
  first: number;
  queries: number;
  /** Callers, in pairs. */
  callers: number;
  /** A pair's pause after its two calls settle, before its next query, ms. */
  pauseMs: number;
  /** Note which query came next once this many calls had settled. */
  settledMark?: number;
}

/** Calls each query of the plan twice at once, the callers in pairs; keeps every call's window and outcome. */
export async function runBatch(tool: StructuredToolInterface, { first, queries, callers, pauseMs, settledMark = 0 }: BatchPlan): Promise<BatchResult> {
  const out: BatchResult = { windowsMs: [], calls: 0, succeeded: 0, byFallback: 0, failures: new Map(), markQuery: first + queries, wallMs: 0, cpuMs: 0 };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let next = first;
  const end = first + queries;
  const one = async (query: number, side: number): Promise<void> => {
    const key = String(query);
    const t = performance.now();
    let result: unknown;
    let thrown = false;
    try {
      result = await tool.invoke(toolCall("lookup", { key }, query * 2 + side));
    } catch (error) {
      result = error;
      thrown = true;
    }
    out.windowsMs.push(performance.now() - t);
    const failure = failureOf(key, result, thrown);
    if (failure === undefined && ((result as ToolMessage).artifact as { fallback?: unknown } | undefined)?.fallback !== undefined) out.byFallback++;
    out.calls++;
    if (failure === undefined) out.succeeded++;
    else out.failures.set(failure, (out.failures.get(failure) ?? 0) + 1);
    if (out.calls === settledMark) out.markQuery = next;
  };
  await Promise.all(
    Array.from({ length: Math.max(1, Math.floor(callers / 2)) }, async () => {
      while (next < end) {
        const query = next++;
        await Promise.all([one(query, 0), one(query, 1)]);
        if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  out.wallMs = performance.now() - t0;
  out.cpuMs = (cpu.user + cpu.system) / 1000;
  return out;
}

/** Merges batches of one subject. */
export function merge(batches: readonly BatchResult[]): BatchResult {
  const failures = new Map<string, number>();
  for (const b of batches) for (const [what, n] of b.failures) failures.set(what, (failures.get(what) ?? 0) + n);
  return {
    windowsMs: batches.flatMap((b) => b.windowsMs),
    calls: batches.reduce((a, b) => a + b.calls, 0),
    succeeded: batches.reduce((a, b) => a + b.succeeded, 0),
    byFallback: batches.reduce((a, b) => a + b.byFallback, 0),
    failures,
    markQuery: batches[0]?.markQuery ?? 0,
    wallMs: batches.reduce((a, b) => a + b.wallMs, 0),
    cpuMs: batches.reduce((a, b) => a + b.cpuMs, 0),
  };
}

/** "12 service_unavailable; 3 …", most common first. */
export const failureText = (failures: ReadonlyMap<string, number>): string =>
  [...failures].sort((a, b) => b[1] - a[1]).map(([what, n]) => `${n} ${what}`).join("; ") || "—";
