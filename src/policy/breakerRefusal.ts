/** What a call the circuit breaker refuses reads: why the server's calls are paused, and for how long. */
import { McpToolError } from "../errors/McpToolError.js";
import type { RateReached } from "../events.js";
import type { CallContext } from "./abort.js";

/** What opened the circuit, as far as a refusal tells it. */
export interface OpenedBy {
  serverName: string;
  lastError: McpToolError | undefined;
  /** The rate over the window that opened it, if not consecutive failures. */
  rate: RateReached | undefined;
  slowCallMs: number | undefined;
}

/** Why a rate opened the circuit: "40% of its last 10 calls failed". */
export function rateText(rate: RateReached, slowCallMs: number | undefined): string {
  const share = `${Math.round(rate.value * 100)}% of its last ${rate.calls} calls`;
  return rate.rule === "failureRate" ? `${share} failed` : `${share} took longer than ${slowCallMs} ms`;
}

/**
 * `circuit_open` for one call. `remainingMs`: the open period still to run; `heldMs`: the call
 * waited that long for another call's test of the server, and its time ran out.
 */
export function refusal(opened: OpenedBy, context: CallContext, remainingMs?: number, heldMs?: number): McpToolError {
  const { serverName, lastError, rate } = opened;
  // A slow-call rate is no failure's doing: the last failure may be long past.
  const last = lastError && rate?.rule !== "slowCallRate" ? ` (last: ${lastError.reason})` : "";
  const until = remainingMs ? ` for ${Math.ceil(remainingMs / 1000)} s more` : "";
  const held = heldMs === undefined ? "" : `: another call is testing whether it is back, and this call's ${heldMs} ms ran out waiting for the verdict`;
  const after = rate ? rateText(rate, opened.slowCallMs) : "repeated failures";
  return McpToolError.of("circuit_open", `Calls to server '${serverName}' are paused${until} after ${after}${last}${held}.`, { ...context, serverName });
}
