/** The SDK's options for one attempt's tools/call, and who hears its progress. */
import type { CallOptions, Progress } from "../session/clients.js";
import type { AttemptScope } from "../../policy/TimeoutPolicy.js";
import type { SendingAttempt, ToolTarget } from "./attempt.js";
import { requestMark } from "./requestScope.js";

/**
 * The SDK's options for the attempt's tools/call: the request's signal, the SDK's backstop,
 * the mark that names the attempt's requests, and progress where someone hears it. Built in
 * one object, without spreads: it is made for every call.
 */
export function callOptions(facts: SendingAttempt): CallOptions {
  const { target, scope } = facts;
  const options: CallOptions = { signal: scope.signal, timeout: target.sdkTimeoutMs };
  if (facts.headers) options.headers = facts.headers;
  // Only our own transports report request ids (a user's client keeps its transport as it is).
  const ours = facts.lease?.requests.reportsIds === true;
  if (ours) {
    const mark = requestMark((id) => facts.sent(id));
    if (facts.chaos) mark.fault = facts.chaos;
    options.onresumptiontoken = mark;
  }
  const { toolDefinition } = target.connection.catalog.callOptionsFor(target.mcpName);
  if (toolDefinition) options.toolDefinition = toolDefinition;
  const progress = progressOptions(target, scope, facts.progress);
  if (!progress.onprogress) return options;
  if (!ours) {
    options.onprogress = progress.onprogress;
    if (progress.resetTimeoutOnProgress) options.resetTimeoutOnProgress = true;
    return options;
  }
  // Our client's own record hears the call's progress, in the order the messages arrived
  // (ClientRequests.progressed): the SDK dispatches a notification a microtask after it reads it
  // but a response at once, so the last progress read together with the result was lost. The SDK
  // is asked only to send a progress token; our timer, not its backstop, bounds a call kept alive
  // by progress.
  facts.onprogress = progress.onprogress;
  options.onprogress = NO_OP;
  if (progress.resetTimeoutOnProgress) options.timeout = SDK_NEVER_MS;
  return options;
}

const NO_PROGRESS: Pick<CallOptions, "onprogress" | "resetTimeoutOnProgress"> = Object.freeze({});
const NO_OP = (): void => {};
/** The SDK's timer for a call that progress keeps alive: the longest Node allows; our scope bounds the call. */
const SDK_NEVER_MS = 2 ** 31 - 1;

/**
 * Who hears a call's progress: our timer (reset by it, when the policy says so; the SDK's backstop
 * is reset too, or it would end a long tool our timer lets run) and whoever listens. Without
 * either, no progress token is sent.
 */
export function progressOptions(target: ToolTarget, scope: AttemptScope, heard: ((progress: Progress) => void) | undefined): Pick<CallOptions, "onprogress" | "resetTimeoutOnProgress"> {
  const reset = target.resetTimeoutOnProgress;
  if (!reset && !heard) return NO_PROGRESS;
  const onprogress = (progress: unknown) => {
    if (reset) scope.progress();
    heard?.(progress as Progress);
  };
  return reset ? { resetTimeoutOnProgress: true, onprogress } : { onprogress };
}
