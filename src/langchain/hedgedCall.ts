/**
 * A hedged call of a read-only tool (its policy's `hedge`). The call runs through the pipeline
 * as any other, for its events, its deadline, its fallback and its span; its one attempt there
 * is the hedge group (policy/Hedger.ts), and each attempt of the group is a single attempt
 * through a pipeline of its own: the server's Retry-After, throttle, breaker and bulkhead, its
 * own timeout, the call's deadline, its own signal (aborted when another attempt answers, which
 * sends the server `notifications/cancelled`). Hedging takes the place of the retry policy, as
 * gRPC's `hedgingPolicy` does: an attempt that fails in a way worth repeating sends the next at
 * once, within `maxAttempts` and the retry budget.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { McpToolError } from "../errors/McpToolError.js";
import { isSafeToRetry } from "../errors/safeRepeat.js";
import { Deadline } from "../policy/Deadline.js";
import type { WithFallback } from "../policy/FallbackPolicy.js";
import { hedge, type HedgeTrigger } from "../policy/Hedger.js";
import { runPipeline, type Instrumentation, type PipelineSpec } from "../policy/pipeline.js";
import type { ToolCall, ToolRuntime } from "./toolCall.js";

/** The longest timer a runtime keeps (about 24.8 days): the group's own, which the call's deadline cuts. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Answered attempts a `"p95"` delay is read from, and how many it needs first. */
const LATENCIES_KEPT = 100;
const LATENCIES_NEEDED = 20;

/** The last attempts of a tool that answered, and how long each took: the `"p95"` delay. */
export class Latencies {
  private readonly kept: number[] = [];
  private next = 0;

  add(ms: number): void {
    if (this.kept.length < LATENCIES_KEPT) this.kept.push(ms);
    else this.kept[this.next] = ms;
    this.next = (this.next + 1) % LATENCIES_KEPT;
  }

  /** The 95th percentile, or undefined while too few attempts answered to say. */
  p95(): number | undefined {
    if (this.kept.length < LATENCIES_NEEDED) return undefined;
    const sorted = [...this.kept].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)];
  }
}

const latencies = new WeakMap<ToolRuntime, Latencies>();

/**
 * The hedged call. `spec`: the tool's pipeline spec for this call; `callFor(signal, i)`: the
 * ToolCall of attempt `i` (each attempt its own, under its own signal); `deadline`: the call's.
 */
export function hedgedCall(
  runtime: ToolRuntime,
  spec: PipelineSpec<CallToolResult, ToolCall>,
  signal: AbortSignal | undefined,
  callFor: (signal: AbortSignal, i: number) => ToolCall,
  deadline: Deadline,
): Promise<WithFallback<CallToolResult>> {
  const options = runtime.policy.hedge!;
  const { policy, guards, fallback: _fallback, instrument, ...rest } = spec;
  const single: PipelineSpec<CallToolResult, ToolCall> = { ...rest, ...(guards ? { guards } : {}), policy: { ...policy, retry: { ...policy.retry, retries: 0 } }, report: false, hedged: { fallback: spec.fallback !== undefined } };
  const seen = latencies.get(runtime) ?? new Latencies();
  latencies.set(runtime, seen);
  const events = spec.events;
  const context = spec.context;

  const mayHedge = (_i: number, trigger: HedgeTrigger, after: McpToolError | undefined): boolean => {
    if (!deadline.admits) return false;
    // The one rule for every repeat: a failure is repeated only where repeating it is safe and worth it.
    if (trigger === "failure" && !(after && isSafeToRetry(after, policy.idempotent, policy.retry.retryUnknownOutcome))) return false;
    return guards?.budget ? guards.budget.tryRetry(after?.reason) : true;
  };
  const send = (i: number, under: AbortSignal): Promise<CallToolResult> => {
    const started = performance.now();
    // Its own deadline object (the same end), so that one attempt's end does not disarm another's.
    const own = instrument ? { ...single, instrument: attemptSpans(instrument, i + 1) } : single;
    return runPipeline(own, under, callFor(under, i), new Deadline(Number.POSITIVE_INFINITY, deadline.floorMs, deadline)).then(({ value }) => {
      seen.add(performance.now() - started);
      return value;
    });
  };
  const delayMs = options.delayMs === "p95" ? p95Delay(seen, options.minDelayMs) : options.delayMs;
  const group: PipelineSpec<CallToolResult, undefined> = {
    ...spec,
    guards: undefined,
    // The call's span; each attempt of the group has its own, under it.
    ...(instrument ? { instrument: callSpan(instrument) } : {}),
    // The group has no timer of its own: each attempt has its own, and the deadline ends them all.
    policy: { ...policy, retry: { ...policy.retry, retries: 0 }, timeoutMs: MAX_TIMER_MS, resetTimeoutOnProgress: false, maxTotalTimeoutMs: undefined },
    attempt: () =>
      hedge({
        maxAttempts: options.maxAttempts,
        delayMs,
        send,
        mayHedge,
        signal,
        ...(events
          ? { onHedge: (i: number, outcome: "sent" | "won" | "lost", trigger?: HedgeTrigger) => events.emit({ type: "hedge", ...context, attempt: i + 1, outcome, ...(trigger ? { trigger } : {}) }) }
          : {}),
      }),
  };
  return runPipeline(group, signal, undefined, deadline);
}

/** The call's span alone: the group is no attempt of its own. */
function callSpan(instrument: Instrumentation): Instrumentation {
  return { call: (context, run) => instrument.call(context, run), attempt: (_context, _n, run) => run(undefined) };
}

/** Attempt `n`'s span alone (a child of the call's, found by the call's context), with the trace context its request carries. */
function attemptSpans(instrument: Instrumentation, n: number): Instrumentation {
  return { call: (_context, run) => run(), attempt: (context, _n, run) => instrument.attempt(context, n, run) };
}

function p95Delay(seen: Latencies, floorMs: number): number | undefined {
  const p95 = seen.p95();
  return p95 === undefined ? undefined : Math.max(floorMs, p95);
}
