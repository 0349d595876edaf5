/**
 * Hedged resource reads: a `tools` key `<server>/resources/read` with `hedge` sends a second read
 * beside one that has not answered within `delayMs`, as a read-only tool's hedged call does
 * (langchain/hedgedCall.ts). A read only reads, so no annotation is needed. Each attempt is a
 * single attempt through the pipeline (no retries of its own: the hedges are the repeats), all
 * under one deadline; each attempt past the first takes a retry from the server's budget, and a
 * failure worth repeating (by the one rule) sends the next at once.
 */
import type { HedgeOptions } from "../config/toolPolicy.js";
import type { McpToolError } from "../errors/McpToolError.js";
import { isSafeToRetry } from "../errors/safeRepeat.js";
import type { EventHub } from "../eventHub.js";
import { CallContract } from "../mcp/call/CallContract.js";
import { hedge, type HedgeGroup, type HedgeTrigger } from "../policy/Hedger.js";
import type { ResolvedPolicy } from "../policy/resolve.js";
import type { RetryBudget } from "../policy/RetryBudget.js";

export interface HedgedReadParts<T> {
  policy: ResolvedPolicy & { hedge: Required<HedgeOptions> };
  /** One attempt, within the group's contract (its deadline), under `signal`; `call` stands for the read at the breaker. */
  attempt: (signal: AbortSignal, within: CallContract, call: HedgeGroup) => Promise<T>;
  budget: RetryBudget | undefined;
  events: EventHub;
  context: { toolName: string; serverName: string };
}

export function hedgedRead<T>(parts: HedgedReadParts<T>, signal: AbortSignal | undefined): Promise<T> {
  const { policy, budget, events, context } = parts;
  const group = new CallContract(policy, { policy: false });
  // A read has no fallback; the object stands for the read, so its attempts' failures count once at the breaker.
  const call: HedgeGroup = { fallback: false };
  const { delayMs, minDelayMs, maxAttempts } = policy.hedge;
  return hedge({
    maxAttempts,
    // A read has no history kept here to take a 95th percentile from: "p95" waits its floor.
    delayMs: delayMs === "p95" ? minDelayMs : delayMs,
    send: (_i, under) => parts.attempt(under, group, call),
    mayHedge: (_i: number, trigger: HedgeTrigger, after: McpToolError | undefined) => {
      if (!group.deadline.admits) return false;
      if (trigger === "failure" && !(after && isSafeToRetry(after, true, policy.retry.retryUnknownOutcome))) return false;
      return budget ? budget.tryRetry(after?.reason) : true;
    },
    signal,
    onHedge: (i, outcome, trigger) => events.emit({ type: "hedge", ...context, attempt: i + 1, outcome, ...(trigger ? { trigger } : {}) }),
  });
}
