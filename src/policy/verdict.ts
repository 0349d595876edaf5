/**
 * What one finished call says about its server: the circuit breaker's one rule (CircuitBreaker,
 * its rate window, the fleet's circuit), and the toolkit's view of a server's health.
 */
import { isControlFlow } from "../errors/controlFlow.js";
import { isMcpToolError, isServerFailure } from "../errors/McpToolError.js";
import { decidedByCaller, reasonInfo } from "../errors/reasons.js";
import type { Verdict } from "./breakerTypes.js";
import { isDeadlineError } from "./Deadline.js";

/**
 * A server failure counts against the server. A cancel says nothing about it either way. Any
 * other end, a success, a tool's own `isError` or a permanent error, shows a server that answers.
 */
export function verdictOf(error: unknown): Verdict {
  if (isControlFlow(error)) return "no_evidence";
  // The server answered (it refused a session it forgot, or our version): it is up.
  if (isMcpToolError(error) && reasonInfo(error.reason).serverAnswered) return "healthy";
  // One of our own guards decided (a full bulkhead): the server was not asked.
  if (isMcpToolError(error) && reasonInfo(error.reason).byGuard) return "no_evidence";
  // The caller's deadline ended it: that says how long the caller waits, not how the server is.
  if (isMcpToolError(error) && isDeadlineError(error)) return "no_evidence";
  if (isServerFailure(error)) return "failure";
  if (isMcpToolError(error) && decidedByCaller(error.reason)) return "no_evidence";
  return "healthy";
}

/**
 * The hedged call a failed attempt was one of (PipelineSpec.hedged). A hedged call re-sends a
 * failed attempt at once, so one call's failures land back to back with no other call's answer
 * between them: counted apart, one unlucky call of independent failures would be a run of
 * consecutive ones. Counted once, as the attempts of one call on one dead connection are.
 */
const hedgedCalls = new WeakMap<object, object>();

/** Marks `error` as a failed attempt of the hedged call `call` (any object standing for it). */
export function failedInHedge<E extends object>(error: E, call: object): E {
  hedgedCalls.set(error, call);
  return error;
}

/** The hedged call a failure was an attempt of, if any. */
export function hedgedCallOf(error: object): object | undefined {
  return hedgedCalls.get(error);
}

/** How many recent failure keys are remembered. */
const KEYS_KEPT = 32;

/**
 * The keys of recent failures (BreakerHooks.failureKey, or a hedged call): every call in flight
 * on a connection that died fails with it, and that is one piece of evidence about the server, not six.
 */
export class FailureKeys {
  private readonly seen: (string | object)[] = [];

  /** Is a failure with this key (a string, or the hedged call it was one of) new evidence? One without a key always is. */
  isNew(key: string | object | undefined): boolean {
    if (key === undefined) return true;
    if (this.seen.includes(key)) return false;
    this.seen.push(key);
    if (this.seen.length > KEYS_KEPT) this.seen.shift();
    return true;
  }
}
