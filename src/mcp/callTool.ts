import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { callToolWith, isV2Client, type AnyClient, type CallOptions, type CallParams } from "./clients.js";
import { withInputRounds } from "./input.js";
import { LOG_LEVEL_META_KEY } from "./serverLogs.js";
import { markRequests, type RequestIds } from "./requestScope.js";
import { runsAsTask, taskAttempt, type TaskCall } from "./taskCall.js";
import { isControlFlow } from "../errors/controlFlow.js";
import { fromResult } from "../errors/fromResult.js";
import type { McpToolError } from "../errors/McpToolError.js";
import type { CustomCodeTable } from "../errors/normalize.js";
import type { CallContext } from "../policy/abort.js";
import type { AttemptScope } from "../policy/TimeoutPolicy.js";
import { settled, withServerLogs, type AttemptFacts } from "./attemptFailure.js";
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

/** One `notifications/progress` of a call. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** Asked after an attempt failed: may settle the attempt another way (`again` repeats it). */
export interface AttemptRecovery {
  /** Does this failure call for it? Asked first, so most failures pass by without a step of its own. */
  handles(error: unknown): boolean;
  retry<T>(error: unknown, scope: AttemptScope, again: () => Promise<T>): Promise<T>;
}

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
  task?: TaskCall,
  recovery?: AttemptRecovery,
  progress?: (progress: Progress) => void,
  headers?: Record<string, string>,
): Promise<CallToolResult> {
  const facts: AttemptFacts = { target, args, scope, attempt, context, callerSignal, meta, task, recovery, progress, headers, abortedBeforeSend: false, startedAt: Date.now() };
  const params = { name: target.mcpName, arguments: args, ...(meta ? { _meta: meta } : {}) };
  return recoverFrom(attemptOnce(facts, params, task), facts);
}

async function attemptOnce(facts: AttemptFacts, params: CallParams, task: TaskCall | undefined): Promise<CallToolResult> {
  const { target, scope, context } = facts;
  const { connection } = target;
  // Each request the call writes is registered under its id, so a broken stream can end it,
  // and the attempt itself, so the toolkit's close ends it.
  const tracked = (facts.tracked = new TrackedAttempt(facts));
  let threw = false;
  let result: CallToolResult;
  try {
    const lease = connection.current() ?? (await connection.lease(scope.signal));
    facts.lease = lease;
    // The timer runs while (re)connecting; once it has fired, the SDK refuses the call unsent.
    facts.abortedBeforeSend = scope.signal.aborted;
    const client = lease.client;
    // A task's polls are not tied to the call's controller: each poll's stream ends as it
    // answers while the call goes on, and a lost connection must not cancel the task.
    result = runsAsTask(task, client, connection, target.mcpName)
      ? await taskAttempt(client, params, task, scope, { ...context, attempts: facts.attempt, ...(target.customCodes ? { customCodes: target.customCodes } : {}) }, target.sdkTimeoutMs, { connection, headers: facts.headers, ...progressOptions(target, scope, facts.progress) })
      : await sendCall(connection, client, params, context, scope, {
          ...markRequests(tracked),
          ...connection.catalog.callOptionsFor(target.mcpName),
          signal: scope.signal,
          timeout: target.sdkTimeoutMs,
          ...progressOptions(target, scope, facts.progress),
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

/**
 * The requests of one attempt, registered under their JSON-RPC ids, so an answer stream that
 * breaks ends the attempt at once through its scope's controller; and the attempt itself, so
 * the toolkit's close ends it on any transport.
 */
export class TrackedAttempt implements RequestIds {
  private untracks: Array<(failed: boolean) => void> | undefined;
  private readonly leave: () => void;

  constructor(private readonly facts: AttemptFacts) {
    this.leave = facts.target.connection.requests.enter(facts.scope.controller);
  }

  get controller(): AbortController {
    return this.facts.scope.controller;
  }

  sent(id: number): void {
    this.facts.id = id;
    (this.untracks ??= []).push(this.facts.target.connection.requests.track(id, this.facts.scope.controller, this.facts.headers));
  }

  /** The attempt settled. A failed one gets no answer after this: a stream still open for one is closed. */
  end(failed: boolean): void {
    this.leave();
    if (this.untracks) for (const untrack of this.untracks) untrack(failed);
  }
}

/** The attempt's outcome, unless it failed and the call's recovery settles it another way. */
function recoverFrom(outcome: Promise<CallToolResult>, facts: AttemptFacts): Promise<CallToolResult> {
  return facts.recovery ? outcome.catch((error: unknown) => recoverOrReject(error, facts)) : outcome;
}

/** A failed attempt: settled by the call's recovery where that applies, otherwise its error. */
function recoverOrReject(error: unknown, facts: AttemptFacts): Promise<CallToolResult> {
  const { recovery } = facts;
  if (!recovery?.handles(error)) return Promise.reject(error);
  const again = () => callToolOnce(facts.target, facts.args, facts.scope, facts.attempt, facts.context, facts.callerSignal, facts.meta, facts.task, recovery, facts.progress, facts.headers);
  return recovery.retry(error, facts.scope, again);
}

/**
 * Who hears a call's progress: our timer (reset by it, when the policy says so; the SDK's backstop
 * is reset too, or it would end a long tool our timer lets run) and whoever listens. Without
 * either, no progress token is sent.
 */
function progressOptions(target: ToolTarget, scope: AttemptScope, heard: ((progress: Progress) => void) | undefined): Pick<CallOptions, "onprogress" | "resetTimeoutOnProgress"> {
  const reset = target.resetTimeoutOnProgress;
  if (!reset && !heard) return {};
  const onprogress = (progress: unknown) => {
    if (reset) scope.progress();
    heard?.(progress as Progress);
  };
  return reset ? { resetTimeoutOnProgress: true, onprogress } : { onprogress };
}

/** A result the tool answered with `isError` is its own failure, classified from the result. */
function domainError(result: CallToolResult, facts: AttemptFacts): McpToolError | undefined {
  const error = fromResult(result, { ...facts.context, attempts: facts.attempt });
  return error && withServerLogs(error, facts.target.connection, facts.startedAt);
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
 * in the call's own async context, so an input handler can pause a LangGraph run; each wait on
 * the handler ends when the attempt does, whether or not the handler heeds its signal.
 */
function sendCall(connection: Connection, client: AnyClient, params: CallParams, context: CallContext, scope: AttemptScope, options: CallOptions): Promise<CallToolResult> {
  if (!isV2Client(client) || client.getProtocolEra() !== "modern") return callToolWith(client, params, options);
  // 2026-07-28 has no session to set a log level on: each request states it.
  const level = connection.logLevel;
  if (level) params = { ...params, _meta: { ...params._meta, [LOG_LEVEL_META_KEY]: level } };
  const { handler, maxRounds } = connection.input;
  const inputContext = { serverName: connection.name, era: "modern" as const, ...(context.toolName ? { toolName: context.toolName } : {}), signal: scope.signal };
  return withInputRounds((p: CallParams) => callToolWith(client, p, { ...options, allowInputRequired: true }), params, { handler, maxRounds, context: inputContext, wait: (answer) => scope.wait(answer) });
}
