/**
 * Shared reads (a tool policy's `coalesce: true`, read-only tools only): identical calls in flight
 * share one request, as Go's singleflight and opossum's coalescing share one. "Identical" is what
 * the server would receive: the tool (its server and MCP name), the arguments as sent, and the
 * per-call headers and `_meta` that `beforeToolCall` gave for the first send, so calls under two
 * identities (two users' `Authorization`) never share. The key is made once those are known and
 * before anything is sent: the hook is asked for the first send ahead of the call
 * (`ToolCall.planFirstSend`), and that send goes with its answer.
 *
 * The shared request is one whole call, the policies included (retries, breaker, throttle,
 * fallback, deadline): they run once for every caller, under a signal bound to none of them
 * (policy/Coalescer.ts). Each caller waits under its own signal: its abort, its LangChain
 * `timeout` or its graph step's settles that caller alone (`cancelled`, or `request_timeout`), and
 * the request is cancelled on the server only when the last caller waiting for it has gone. Each
 * caller gets its own copy of the result. The shared call's deadline started with its first
 * caller's, so it is never later than a caller's own.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isMcpToolError } from "../errors/McpToolError.js";
import type { EventHub } from "../eventHub.js";
import { cancelled, type CallContext } from "../policy/abort.js";
import { Coalescer } from "../policy/Coalescer.js";
import type { WithFallback } from "../policy/FallbackPolicy.js";
import type { ToolIdentity } from "../policy/resolve.js";
import type { FirstPlan, ToolCall } from "./toolCall.js";

type Answer = WithFallback<CallToolResult>;

/** Starts the shared call: the whole pipeline under `signal`, its first send with `planned`. */
export type StartShared = (signal: AbortSignal | undefined, planned: FirstPlan | undefined) => Promise<Answer>;

export class SharedCalls {
  private readonly flights = new Coalescer<Answer>();

  constructor(private readonly events: EventHub) {}

  /**
   * One caller's call of a coalescing tool. `planner` is the call as it would run alone, under the
   * caller's signal: it asks `beforeToolCall` for the first send, when the toolkit has the hook.
   */
  call(identity: ToolIdentity, args: Record<string, unknown>, signal: AbortSignal | undefined, context: CallContext, planner: ToolCall | undefined, start: StartShared): Promise<Answer> {
    if (!planner) return this.join(identity, args, undefined, signal, context, start);
    return planner.planFirstSend().then(
      (planned) => this.join(identity, args, planned, signal, context, start),
      (error: unknown) => this.unplanned(error, context),
    );
  }

  private join(identity: ToolIdentity, args: Record<string, unknown>, planned: FirstPlan | undefined, signal: AbortSignal | undefined, context: CallContext, start: StartShared): Promise<Answer> {
    const plan = planned?.plan;
    const key = keyOf(identity, plan?.args ?? args, plan?.headers, plan?.meta);
    // Arguments JSON cannot say (a BigInt, a cycle) cannot be told equal: the call goes alone.
    if (key === undefined) return start(signal, planned);
    const { result, joined } = this.flights.join(key, (shared) => start(shared, planned), signal, (reason) => cancelled(context, reason));
    if (!joined) return result.then(ownCopy);
    // The shared request reports its own `call`, `retry`, `success` and `error`, once, as any call
    // does (they are what `status()` counts); a caller that joined it reports its own, marked.
    const started = performance.now();
    const { events } = this;
    if (events.listens("call")) events.emit({ type: "call", ...context, coalesced: true });
    return result.then(
      (out) => {
        if (events.listens("success")) events.emit({ type: "success", ...context, attempts: 0, durationMs: performance.now() - started, coalesced: true });
        return ownCopy(out);
      },
      (error: unknown) => {
        if (isMcpToolError(error) && events.listens("error")) events.emit({ type: "error", ...context, attempt: error.attempts, error, coalesced: true });
        throw error;
      },
    );
  }

  /** `beforeToolCall` failed before the call could be keyed: reported as a call that failed at its first send is. */
  private unplanned(error: unknown, context: CallContext): never {
    const { events } = this;
    if (isMcpToolError(error)) {
      if (events.listens("call")) events.emit({ type: "call", ...context });
      if (events.listens("error")) events.emit({ type: "error", ...context, attempt: error.attempts, error });
    }
    throw error;
  }
}

/** Each caller's own result: what one caller's hooks or conversion do to it never reaches another's. */
function ownCopy(out: Answer): Answer {
  return { ...out, value: structuredClone(out.value) };
}

/**
 * The key of a request: the tool, and the arguments, per-call headers (names in lower case, as
 * HTTP reads them) and `_meta` it is sent with, as JSON with every object's keys in order, so two
 * calls whose arguments differ only in key order share. Undefined when JSON cannot say them.
 */
export function keyOf(identity: ToolIdentity, args: Record<string, unknown>, headers: Record<string, string> | undefined, meta: Record<string, unknown> | undefined): string | undefined {
  const lowered = headers && Object.keys(headers).length > 0 ? Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])) : null;
  try {
    return JSON.stringify([identity.serverName, identity.mcpName, args, lowered, meta ?? null], inOrder);
  } catch {
    return undefined;
  }
}

/** JSON.stringify's replacer: a plain object with its keys sorted (arrays keep their order). */
function inOrder(_key: string, value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
