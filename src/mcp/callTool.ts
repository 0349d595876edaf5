import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { callToolWith, isV2Client, type AnyClient, type CallOptions, type CallParams } from "./clients.js";
import { withInputRounds } from "./input.js";
import { markRequests, type RequestIds } from "./requestScope.js";
import { runsAsTask, taskAttempt, type TaskCall } from "./taskCall.js";
import { isControlFlow } from "../errors/controlFlow.js";
import { fromResult } from "../errors/fromResult.js";
import type { McpToolError } from "../errors/McpToolError.js";
import type { CustomCodeTable } from "../errors/normalize.js";
import type { CallContext } from "../policy/abort.js";
import type { AttemptScope } from "../policy/TimeoutPolicy.js";
import { settled, type AttemptFacts } from "./attemptFailure.js";
import type { Connection, Lease } from "./Connection.js";

/** What one attempt calls: a tool on a server, reached through its connection at call time. */
export interface ToolTarget {
  connection: Connection;
  /** The tool's name on its server. */
  mcpName: string;
  customCodes?: CustomCodeTable;
  /** How long the SDK's own timer may run: a backstop far behind ours. */
  sdkTimeoutMs: number;
  resetTimeoutOnProgress: boolean;
}

const noProgress = (): void => {};

/** Asked after an attempt failed: may settle the attempt another way (`again` repeats it). */
export interface AttemptRecovery {
  /** Does this failure call for it? Asked first, so most failures pass by without a step of its own. */
  handles(error: unknown): boolean;
  retry<T>(error: unknown, scope: AttemptScope, again: () => Promise<T>): Promise<T>;
}

/**
 * One attempt at an MCP tool call. Its failure is classified once, with everything the attempt
 * learnt on its way (`AttemptFacts`, read in attemptFailure.ts). The error is made for this
 * call alone, even when many calls met the same failed reconnect.
 */
export function callToolOnce(
  target: ToolTarget,
  args: Record<string, unknown>,
  scope: AttemptScope,
  attempt: number,
  context: CallContext,
  callerSignal: AbortSignal | undefined,
  meta?: Record<string, string>,
  task?: TaskCall,
  recovery?: AttemptRecovery,
): Promise<CallToolResult> {
  const { connection } = target;
  const facts: AttemptFacts = { target, args, scope, attempt, context, callerSignal, meta, task, recovery, abortedBeforeSend: false };
  const params = { name: target.mcpName, arguments: args, ...(meta ? { _meta: meta } : {}) };
  let live: Lease | undefined;
  try {
    live = connection.current();
    if (!live || !scope.sdkCanBound || waitsForInput(connection, live.client) || runsAsTask(task, live.client, connection, target.mcpName)) return recoverFrom(attemptLeased(facts, params, task), facts);
  } catch (thrown) {
    return recoverFrom(failed(facts, thrown), facts);
  }
  // The common case: a live connection and no total cap. The SDK's own timer bounds the call
  // (and cancels it on the server). In memory and over stdio the caller's signal goes straight
  // to it: no controller, timer or listener of ours. Over HTTP the attempt's requests are
  // tracked, under one controller of the attempt's own. Chained, not awaited: see policy/chain.ts.
  facts.lease = live;
  facts.abortedBeforeSend = callerSignal?.aborted === true;
  const tracked = connection.tracksStreams ? (facts.tracked = new TrackedAttempt(facts)) : undefined;
  let sent: Promise<CallToolResult>;
  try {
    sent = sendCall(connection, live.client, params, context, callerSignal, {
      ...(tracked ? { ...markRequests(tracked), signal: tracked.controller.signal } : callerSignal ? { signal: callerSignal } : {}),
      timeout: scope.options.timeoutMs,
      ...(scope.options.resetTimeoutOnProgress ? { resetTimeoutOnProgress: true, onprogress: noProgress } : {}),
    });
  } catch (thrown) {
    sent = Promise.reject(thrown);
  }
  return answered(sent, facts);
}

/**
 * The attempt's answer: a result, a domain error, or a failure to classify. Apart from
 * `callToolOnce`, so the handlers a call in flight holds keep `facts` alone (see policy/chain.ts).
 */
function answered(sent: Promise<CallToolResult>, facts: AttemptFacts): Promise<CallToolResult> {
  return sent.then(
    (result) => {
      facts.tracked?.end(false);
      const domain = domainError(result, facts);
      return domain ? recovered(domain, facts) : result;
    },
    (thrown: unknown) => {
      let error: McpToolError | Promise<never>;
      try {
        if (isControlFlow(thrown)) throw thrown;
        error = settled(facts, thrown);
      } finally {
        // After the failure is classified: ending the tracking forgets what the HTTP layer saw.
        facts.tracked?.end(true);
      }
      return error instanceof Promise ? recoverFrom(error, facts) : recovered(error, facts);
    },
  );
}

/**
 * The requests of one attempt, registered under their JSON-RPC ids, so an answer stream that
 * breaks, or the toolkit closing, ends the attempt at once through its controller. On the fast
 * path over HTTP or SSE the controller is made here, handed to the SDK as the request's signal
 * and made to follow the caller's: one per attempt, and no timer of ours.
 */
export class TrackedAttempt implements RequestIds {
  readonly controller: AbortController;
  private onCallerAbort: (() => void) | undefined;
  private untracks: Array<(failed: boolean) => void> | undefined;

  /** @param controller the attempt's own, where it has one already (it then follows the caller itself). */
  constructor(
    private readonly facts: AttemptFacts,
    controller?: AbortController,
  ) {
    if (controller) {
      this.controller = controller;
      return;
    }
    this.controller = new AbortController();
    const caller = facts.callerSignal;
    if (caller?.aborted) this.controller.abort(caller.reason);
    else if (caller) {
      const made = this.controller;
      this.onCallerAbort = () => made.abort(caller.reason);
      caller.addEventListener("abort", this.onCallerAbort, { once: true });
    }
  }

  sent(id: number): void {
    this.facts.id = id;
    (this.untracks ??= []).push(this.facts.target.connection.track(id, this.controller));
  }

  /** The attempt settled. A failed one gets no answer after this: a stream still open for one is closed. */
  end(failed: boolean): void {
    if (this.onCallerAbort) this.facts.callerSignal?.removeEventListener("abort", this.onCallerAbort);
    if (this.untracks) for (const untrack of this.untracks) untrack(failed);
  }
}

/**
 * Inside a `.then`: the call's recovery where it applies, otherwise the error thrown (not
 * returned rejected: the promise it rejects is already awaited, so Node has no unhandled
 * rejection to track and then forget).
 */
function recovered(error: McpToolError, facts: AttemptFacts): Promise<CallToolResult> {
  if (!facts.recovery?.handles(error)) throw error;
  return recoverOrReject(error, facts);
}

/** The attempt's outcome, unless it failed and the call's recovery settles it another way. */
function recoverFrom(outcome: Promise<CallToolResult>, facts: AttemptFacts): Promise<CallToolResult> {
  return facts.recovery ? outcome.catch((error: unknown) => recoverOrReject(error, facts)) : outcome;
}

/** A failed attempt: settled by the call's recovery where that applies, otherwise its error. */
function recoverOrReject(error: unknown, facts: AttemptFacts): Promise<CallToolResult> {
  const { recovery } = facts;
  if (!recovery?.handles(error)) return Promise.reject(error);
  const again = () => callToolOnce(facts.target, facts.args, facts.scope, facts.attempt, facts.context, facts.callerSignal, facts.meta, facts.task, recovery);
  return recovery.retry(error, facts.scope, again);
}

/**
 * Can the answer start 2026-07-28 input rounds that wait on this server's input handler? The
 * SDK's timer bounds each request, not the wait between them: only our timer ends that wait
 * (through the signal the handler gets), so such an attempt needs it.
 */
function waitsForInput(connection: Connection, client: AnyClient): boolean {
  return isV2Client(client) && client.getProtocolEra() === "modern" && connection.input.handler !== undefined;
}

/**
 * An attempt that needs our own controller and timer: a (re)connect to wait for, a total cap,
 * input rounds that may wait on a handler, or a task. Its requests are tracked under that
 * controller, over any transport.
 */
async function attemptLeased(facts: AttemptFacts, params: CallParams, task: TaskCall | undefined): Promise<CallToolResult> {
  const { target, scope, context } = facts;
  const { connection } = target;
  // Each request the call writes is registered under its id, so a broken stream can end it.
  const tracked = (facts.tracked = new TrackedAttempt(facts, scope.controller));
  let threw = false;
  let result: CallToolResult;
  try {
    const lease = await connection.lease(scope.signal);
    facts.lease = lease;
    const client = lease.client;
    // The timer runs while (re)connecting; once it has fired, the SDK refuses the call unsent.
    facts.abortedBeforeSend = scope.signal.aborted;
    // A task's polls are not tied to the call's controller: each poll's stream ends as it
    // answers while the call goes on, and a lost connection must not cancel the task.
    result = runsAsTask(task, client, connection, target.mcpName)
      ? await taskAttempt(client, params, task, scope, { ...context, attempts: facts.attempt, ...(target.customCodes ? { customCodes: target.customCodes } : {}) }, target.sdkTimeoutMs)
      : await sendCall(connection, client, params, context, scope.signal, {
          ...markRequests(tracked),
          signal: scope.signal,
          timeout: target.sdkTimeoutMs,
          ...(target.resetTimeoutOnProgress ? { onprogress: () => scope.progress() } : {}),
        });
  } catch (thrown) {
    threw = true;
    return await failed(facts, thrown);
  } finally {
    tracked.end(threw);
  }
  const domain = domainError(result, facts);
  if (domain) throw domain;
  return result;
}

/** A result the tool answered with `isError` is its own failure, classified from the result. */
function domainError(result: CallToolResult, facts: AttemptFacts): McpToolError | undefined {
  return fromResult(result, { ...facts.context, attempts: facts.attempt });
}

/**
 * Rejects with the attempt's failure, classified; a connection the failure broke is dropped
 * first. Not an async function: most failures leave the connection as it is, and settle at once.
 */
function failed(facts: AttemptFacts, thrown: unknown): Promise<never> {
  if (isControlFlow(thrown)) return Promise.reject(thrown);
  try {
    const error = settled(facts, thrown);
    return error instanceof Promise ? error : Promise.reject(error);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Sends a tools/call. In 2026-07-28 the server may answer `input_required`: the rounds run here,
 * in the call's own async context, so an input handler can pause a LangGraph run.
 */
function sendCall(connection: Connection, client: AnyClient, params: CallParams, context: CallContext, signal: AbortSignal | undefined, options: CallOptions): Promise<CallToolResult> {
  if (!isV2Client(client) || client.getProtocolEra() !== "modern") return callToolWith(client, params, options);
  const { handler, maxRounds } = connection.input;
  const inputContext = { serverName: connection.name, era: "modern" as const, ...(context.toolName ? { toolName: context.toolName } : {}), ...(signal ? { signal } : {}) };
  return withInputRounds((p: CallParams) => callToolWith(client, p, { ...options, allowInputRequired: true }), params, { handler, maxRounds, context: inputContext });
}
