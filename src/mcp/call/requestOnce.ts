/**
 * One attempt at a request that is not a tools/call (`prompts/get`, `prompts/list`), made the way
 * a tool call's attempt is (callTool.ts): under its scope (our timer, the caller's signal), on the
 * live client or after the (re)connect, tracked by its connection so that a broken answer stream
 * or the toolkit's close ends it at once, its `_meta` stamped from the call's contract (the time
 * left of its deadline), and its failure classified once, knowing the method (`target.method`).
 */
import { isControlFlow } from "../../errors/controlFlow.js";
import type { McpToolError } from "../../errors/McpToolError.js";
import type { CallContext } from "../../policy/abort.js";
import { begin } from "../../policy/chain.js";
import type { AttemptScope } from "../../policy/TimeoutPolicy.js";
import type { AnyClient, CallOptions } from "../session/clients.js";
import type { Lease } from "../session/Connection.js";
import type { ToolTarget } from "./attempt.js";
import { settled } from "./attemptFailure.js";
import type { CallContract } from "./CallContract.js";
import { TrackedAttempt } from "./callTool.js";
import { requestMark } from "./requestScope.js";

/** Sends the request on `client` with the SDK's `options` and the `_meta` the send carries. */
export type RequestSend<T> = (client: AnyClient, options: CallOptions, meta: Record<string, unknown> | undefined) => Promise<T>;

/** What a request's attempt is sent with: its target (its `method` set), its call's contract, and who it is for. */
export interface RequestCall {
  target: ToolTarget & { method: string };
  context: CallContext;
  contract: CallContract;
  /** The caller's own signal: an abort is `cancelled`, told apart from our timer. */
  callerSignal: AbortSignal | undefined;
}

/** One attempt: sent, tracked, and its failure classified once (attemptFailure.ts), the connection dropped where it broke. */
export function requestOnce<T>(call: RequestCall, scope: AttemptScope, attempt: number, meta: Record<string, string> | undefined, send: RequestSend<T>): Promise<T> {
  const { target, context, callerSignal } = call;
  const facts = new TrackedAttempt(target, {}, scope, attempt, context, callerSignal, meta, undefined, undefined, undefined);
  const { connection } = target;
  facts.enter();
  const sending = begin(() => {
    const lease = connection.current();
    return lease ? sendOn(call, facts, lease, send) : connection.lease(scope.signal).then((leased) => sendOn(call, facts, leased, send));
  });
  return sending.then(
    (result) => {
      facts.end(false);
      return result;
    },
    (thrown: unknown) => failed(facts, thrown),
  );
}

function sendOn<T>(call: RequestCall, facts: TrackedAttempt, lease: Lease, send: RequestSend<T>): Promise<T> {
  const { scope, target } = facts;
  facts.lease = lease;
  // The timer runs while (re)connecting; once it has fired, the SDK refuses the request unsent.
  facts.abortedBeforeSend = scope.aborted;
  const options: CallOptions = { signal: scope.signal, timeout: target.sdkTimeoutMs };
  // Only our own transports report request ids (a user's client keeps its transport as it is).
  if (lease.requests.reportsIds) options.onresumptiontoken = requestMark((id) => facts.sent(id));
  return send(lease.client, options, call.contract.metaFor(facts.meta, target.connection));
}

/** Classified while the tracker still holds what the transport saw; the attempt then leaves it. */
function failed<T>(facts: TrackedAttempt, thrown: unknown): Promise<T> {
  if (isControlFlow(thrown)) return leave(facts, thrown);
  let error: McpToolError | Promise<never>;
  try {
    error = settled(facts, thrown);
  } catch (bug) {
    return leave(facts, bug);
  }
  return error instanceof Promise ? error.then(undefined, (dropped: unknown) => leave(facts, dropped)) : leave(facts, error);
}

function leave<T>(facts: TrackedAttempt, error: unknown): Promise<T> {
  facts.end(true);
  return Promise.reject(error);
}
