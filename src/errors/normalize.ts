import { errorFor, isMcpToolError, type McpToolError } from "./McpToolError.js";
import type { Classification, NormalizeContext } from "./classify/context.js";
import { fromFallback, TransportFallbackError } from "./classify/fallback.js";
import { fromDeno } from "./classify/deno.js";
import { fromFetchRefusal } from "./classify/fetch.js";
import { fromHttpStatus, httpStatus, isUnexpectedContentType, unexpectedResponse } from "./classify/http.js";
import { fromJsonRpc, jsonRpcCode } from "./classify/jsonrpc.js";
import { connectionClosed, timeoutMessage } from "./classify/local.js";
import { fromOAuth, fromSdkShape, fromSseFailure, isSseError } from "./classify/sdk.js";
import { fromSdkV2, sdkV2Code } from "./classify/sdkV2.js";
import { fromSystem } from "./classify/system.js";
import { fromTls } from "./classify/tls.js";
import { fromWorkerd } from "./classify/workerd.js";
import { messageOf } from "./classify/util.js";
import { fromResult } from "./fromResult.js";

export type { CustomCodeRule, CustomCodeTable, ExitInfo, HttpResponseFacts, NormalizeContext } from "./classify/context.js";
export { parseRetryAfter, retryAfterFromData } from "./classify/retryAfter.js";
export { isRecord, messageOf, stripMcpPrefix } from "./classify/util.js";

const NO_OVERRIDES = Object.freeze({});

/**
 * Turns any failure of an MCP tool call into one classified {@link McpToolError}.
 * An `McpToolError` passes through unchanged; a result with `isError: true` is the tool's own
 * answer and reads as {@link fromResult} reads it.
 */
export function normalize(error: unknown, context: NormalizeContext = {}): McpToolError {
  if (isMcpToolError(error)) return error;
  let fields: Classification;
  try {
    // A caller handing us the tool's answer asks what the tool said, not what went wrong on the way.
    const answered = fromResult(error, context);
    if (answered) return answered;
    fields = classify(error, context);
  } catch {
    // A Proxy whose traps throw, a getter that throws: still one failure to report, never a second.
    fields = { reason: "unknown", message: "An error was thrown that could not be read." };
  }
  return errorFor(fields.reason, fields.message, fields.overrides ?? NO_OVERRIDES, {
    toolName: context.toolName,
    serverName: context.serverName,
    attempts: context.attempts,
    cause: error,
  });
}

/** Each source in turn, the most certain first; the first that recognises the error decides. */
function classify(error: unknown, ctx: NormalizeContext): Classification {
  if (error instanceof TransportFallbackError) return fromFallback(error, ctx, classify);
  const message = messageOf(error);
  const code = jsonRpcCode(error);
  // Context first: the SDK reports an abort, our timeout and a server's -32001 with one code.
  if (ctx.aborted) return { reason: "cancelled", message: "The call was cancelled by the caller." };
  if (ctx.timedOut) return { reason: "request_timeout", message: timeoutMessage(ctx.timedOutAfter ? { data: ctx.timedOutAfter } : error, message) };
  if (ctx.transportClosed) return connectionClosed(ctx, code);
  // The HTTP layer saw a page or a JSON that no MCP server sends; what the SDK made of it (a schema
  // error, a JSON syntax error) would read as a bad result the tool produced.
  if (ctx.response?.unexpected) return unexpectedResponse(ctx, message);

  if (code !== undefined) return fromJsonRpc(error, code, message, ctx);
  const sdkCode = sdkV2Code(error);
  // The v2 client's era probe wraps the network's failure (a refused socket, a bad certificate):
  // that failure is the news, and nothing of the probe was delivered.
  const probeCause = sdkCode === "ERA_NEGOTIATION_FAILED" ? (error as { cause?: unknown }).cause : undefined;
  if (probeCause instanceof Error) return classify(probeCause, { ...ctx, notSent: true });
  if (sdkCode !== undefined) return fromSdkV2(error, sdkCode, message, ctx);
  const status = httpStatus(error);
  if (status !== undefined) return fromHttpStatus(status, message, ctx);
  if (isUnexpectedContentType(error)) return unexpectedResponse(ctx, message);
  // Before the SSE text match: the eventsource package flattens a certificate failure, or fetch's
  // refusal of a port, into its text.
  const tls = fromTls(error, ctx) ?? fromFetchRefusal(error, ctx);
  if (tls) return tls;
  // Runtimes whose fetch puts no code on its errors: Deno's words, workerd's fixed texts.
  const runtime = fromDeno(error, message, ctx) ?? fromWorkerd(error, ctx);
  if (runtime) return runtime;
  if (isSseError(error)) return fromSseFailure(message, ctx);

  return (
    fromOAuth(error, message, ctx) ??
    fromSystem(error, message, ctx) ??
    fromSdkShape(error, message) ??
    { reason: "unknown", message: message || "An unknown error occurred." }
  );
}
