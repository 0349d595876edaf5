import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { callToolWith, isV2Client, type AnyClient, type CallOptions, type CallParams, type Progress } from "../session/clients.js";
import { withInputRounds } from "./input.js";
import { outputMismatch } from "./outputCheck.js";
import { LOG_LEVEL_META_KEY } from "../session/serverLogs.js";
import { runsAsTask, taskAttempt, type TaskCall } from "../tasks/taskCall.js";
import { isControlFlow } from "../../errors/controlFlow.js";
import { begin } from "../../policy/chain.js";
import { fromResult } from "../../errors/fromResult.js";
import type { McpToolError } from "../../errors/McpToolError.js";
import type { CallContext } from "../../policy/abort.js";
import type { AttemptScope } from "../../policy/TimeoutPolicy.js";
import { settled, withChaos, withServerLogs } from "./attemptFailure.js";
import type { InjectedFault } from "../../policy/chaos.js";
import type { AttemptFacts, AttemptRecovery, CallOfAttempt, SendingAttempt, ToolTarget } from "./attempt.js";
import type { SentRequest } from "./ClientRequests.js";
import { identityFor } from "./CallContract.js";
import { callOptions, progressOptions } from "./callOptions.js";
import type { Connection, Lease } from "../session/Connection.js";

export type { AttemptRecovery, CallOfAttempt, ToolTarget } from "./attempt.js";

/**
 * One attempt at an MCP tool call, the same way for every call: under its scope (our timer, the
 * caller's signal), it takes the live client or waits for the (re)connect, sends the call (or
 * runs it as a task, or through input rounds) and tracks its requests so a broken answer stream
 * or the toolkit's close ends it at once. Its failure is classified once, with everything the
 * attempt learnt on its way (`AttemptFacts`, read in attemptFailure.ts). The error is made for
 * this call alone, even when many calls met the same failed reconnect.
 */
export function callToolOnce(
  target: ToolTarget,
  args: Record<string, unknown>,
  scope: AttemptScope,
  attempt: number,
  context: CallContext,
  callerSignal: AbortSignal | undefined,
  meta?: Record<string, string>,
  call?: CallOfAttempt,
  progress?: (progress: Progress) => void,
  headers?: Record<string, string>,
): Promise<CallToolResult> {
  const facts = new TrackedAttempt(target, args, scope, attempt, context, callerSignal, meta, call, progress, headers);
  const params: CallParams = meta ? { name: target.mcpName, arguments: args, _meta: meta } : { name: target.mcpName, arguments: args };
  return attemptOnce(facts, params, call);
}

/**
 * Chained, not awaited (see policy/chain.ts): an attempt in flight holds one reaction, not an
 * async function's frame. The connection is awaited only when there is none to lease now.
 */
function attemptOnce(facts: TrackedAttempt, params: CallParams, task: TaskCall | undefined): Promise<CallToolResult> {
  const { connection } = facts.target;
  // Each request the call writes is registered under its id, so a broken stream can end it,
  // and the attempt itself, so the toolkit's close ends it.
  facts.enter();
  const sending = begin(() => {
    const lease = connection.current();
    return lease ? send(facts, lease, params, task) : connection.lease(facts.scope.signal).then((leased) => send(facts, leased, params, task));
  });
  return sending.then(
    (result) => answered(facts, result),
    (thrown: unknown) => failedAttempt(facts, thrown),
  );
}

function send(facts: TrackedAttempt, lease: Lease, params: CallParams, task: TaskCall | undefined): Promise<CallToolResult> {
  const { target, scope, context } = facts;
  const { connection } = target;
  facts.lease = lease;
  // A fault of the tool's `chaos`, rolled per attempt; the transport injects it.
  if (target.chaos) facts.chaos = target.chaos.pick();
  // The timer runs while (re)connecting; once it has fired, the SDK refuses the call unsent.
  facts.abortedBeforeSend = scope.aborted;
  const client = lease.client;
  // A caller's own headers are often its identity: a call that cannot carry them is not sent.
  if (facts.headers) identityFor(facts.headers, lease.requests.headerRoute, connection.name, !connection.breaksArePerRequest);
  // The key and the time left, stamped now, as the request goes: whatever the connection went through to get here.
  const contract = facts.call?.contract;
  if (contract) {
    const meta = contract.metaFor(params._meta, connection);
    if (meta !== params._meta) params = { ...params, _meta: meta as CallParams["_meta"] };
  }
  // A task's polls are not tied to the call's controller: each poll's stream ends as it
  // answers while the call goes on, and a lost connection must not cancel the task.
  if (!runsAsTask(task, client, connection, target.mcpName)) return sendCall(connection, client, params, context, scope, callOptions(facts));
  facts.viaTask = true;
  const taskContext = { ...context, attempts: facts.attempt, ...(target.customCodes ? { customCodes: target.customCodes } : {}) };
  return taskAttempt(client, params, task, scope, taskContext, target.sdkTimeoutMs, { connection, requests: lease.requests, headers: facts.headers, ...progressOptions(target, scope, facts.progress) });
}

/** The server answered: the toolkit's `afterToolCall` sees it first. A result the tool answered with `isError` is its own failure. */
function answered(facts: TrackedAttempt, result: CallToolResult): CallToolResult | Promise<CallToolResult> {
  facts.end(false);
  const after = facts.call?.afterAnswer;
  return after ? after(result).then((seen) => judged(facts, seen)) : judged(facts, result);
}

function judged(facts: TrackedAttempt, result: CallToolResult): CallToolResult | Promise<CallToolResult> {
  // A task's result was read outside the SDK's callTool, which checks the output schema on its own path.
  const mismatch = facts.viaTask ? outputMismatch(facts.target.connection.tools.find((t) => t.name === facts.target.mcpName), result, { ...facts.context, attempts: facts.attempt }) : undefined;
  if (mismatch) throw mismatch;
  const domain = domainError(result, facts);
  return domain ? recoverOrReject(domain, facts) : result;
}

/**
 * The attempt failed: classified now, while the tracker still holds what the transport saw of
 * its request; a connection the failure broke is dropped before the attempt leaves the tracker.
 * It is then settled by the call's recovery, or rejects. Settled in this reaction when nothing
 * is dropped (most failures), so no rejected promise waits to be adopted (see recoverOrReject;
 * measured with PipelineCall.firstFailed: the failed call's tool window about 2.5% shorter).
 */
function failedAttempt(facts: TrackedAttempt, thrown: unknown): Promise<CallToolResult> {
  if (isControlFlow(thrown)) return leaveWith(facts, thrown);
  let error: McpToolError | Promise<never>;
  try {
    error = settled(facts, thrown);
  } catch (bug) {
    return leaveWith(facts, bug);
  }
  return error instanceof Promise ? error.then(undefined, (dropped: unknown) => leaveWith(facts, dropped)) : leaveWith(facts, error);
}

/** The failed attempt leaves the tracker, then its recovery settles it, or it rejects with `error`. */
function leaveWith(facts: TrackedAttempt, error: unknown): Promise<CallToolResult> {
  facts.end(true);
  return recoverOrReject(error, facts);
}

/**
 * One attempt: what it learnt on its way (`AttemptFacts`, read if it fails), and its requests,
 * registered under their JSON-RPC ids, so an answer stream that breaks ends the attempt at
 * once through its scope; and the attempt itself, so the toolkit's close ends it on any
 * transport. One object per attempt, with no closures of its own.
 */
export class TrackedAttempt implements SendingAttempt, SentRequest {
  lease?: Lease;
  id?: number;
  readonly logMark: number;
  abortedBeforeSend = false;
  chaos?: InjectedFault;
  /** Did the attempt run as a task (its result read outside the SDK's callTool)? */
  viaTask = false;
  /** Hears the progress of the attempt's requests, from its client's record (SentRequest). */
  onprogress?: (progress: unknown) => void;
  /** The ids of the attempt's requests before the latest (`id`): input rounds send several. */
  private earlierIds: number[] | undefined;

  constructor(
    readonly target: ToolTarget,
    readonly args: Record<string, unknown>,
    readonly scope: AttemptScope,
    readonly attempt: number,
    readonly context: CallContext,
    readonly callerSignal: AbortSignal | undefined,
    readonly meta: Record<string, string> | undefined,
    /** The call this attempt is one of: its task, and its recovery (one object for both). */
    readonly call: CallOfAttempt | undefined,
    readonly progress: ((progress: Progress) => void) | undefined,
    readonly headers: Record<string, string> | undefined,
  ) {
    this.logMark = target.connection.logs.mark();
  }

  get task(): TaskCall | undefined {
    return this.call;
  }

  get recovery(): AttemptRecovery | undefined {
    return this.call;
  }

  enter(): void {
    this.target.connection.requests.enter(this.scope);
  }

  /** The attempt's client wrote a request for it, under `id`: tracked by that client alone. */
  sent(id: number): void {
    if (this.id !== undefined) (this.earlierIds ??= []).push(this.id);
    this.id = id;
    this.lease?.requests.track(id, this);
  }

  /** The attempt settled. A failed one gets no answer after this: a stream still open for one is closed. */
  end(failed: boolean): void {
    this.target.connection.requests.leave(this.scope);
    const requests = this.lease?.requests;
    if (!requests) return;
    if (this.id !== undefined) requests.untrack(this.id, this, failed);
    if (this.earlierIds) for (const id of this.earlierIds) requests.untrack(id, this, failed);
  }
}


/**
 * A failed attempt: settled by the call's recovery where that applies, otherwise its error is
 * thrown. Called inside the attempt's promise handlers, so a throw rejects the attempt's own
 * promise: no rejected promise is made to be adopted (with async hooks on, as in every LangGraph
 * run, each costs two more microtasks and Node's unhandled-rejection bookkeeping).
 */
function recoverOrReject(error: unknown, facts: TrackedAttempt): Promise<CallToolResult> {
  const { recovery } = facts;
  if (!recovery?.handles(error)) throw error;
  return recovery.retry(error, facts.scope);
}


/** A result the tool answered with `isError` is its own failure, classified from the result. */
function domainError(result: CallToolResult, facts: AttemptFacts): McpToolError | undefined {
  if ((result as { isError?: unknown }).isError !== true) return undefined;
  const error = fromResult(result, { ...facts.context, attempts: facts.attempt });
  return error && withChaos(withServerLogs(error, facts.target.connection, facts.logMark), facts.chaos);
}

/**
 * Sends a tools/call. In 2026-07-28 the server may answer `input_required`: the rounds run here,
 * in the call's own async context, so an input handler can pause a LangGraph run; each wait on
 * the handler ends when the attempt does, whether or not the handler heeds its signal.
 */
function sendCall(connection: Connection, client: AnyClient, params: CallParams, context: CallContext, scope: AttemptScope, options: CallOptions): Promise<CallToolResult> {
  if (!isV2Client(client) || client.getProtocolEra() !== "modern") return callToolWith(client, params, options);
  // 2026-07-28 has no session to set a log level on: each request states it.
  const level = connection.logLevel;
  if (level) params = { ...params, _meta: { ...params._meta, [LOG_LEVEL_META_KEY]: level } };
  const { handler, maxRounds } = connection.input;
  // The handler's signal is the attempt's real AbortSignal, made only if a handler reads it.
  const inputContext = {
    serverName: connection.name,
    era: "modern" as const,
    ...(context.toolName ? { toolName: context.toolName } : {}),
    get signal(): AbortSignal {
      return scope.signal;
    },
  };
  return withInputRounds((p: CallParams) => callToolWith(client, p, { ...options, allowInputRequired: true }), params, { handler, maxRounds, context: inputContext, wait: (answer) => scope.wait(answer) });
}
