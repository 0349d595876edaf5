import type { Reason } from "../reasons.js";
import type { Classification, NormalizeContext } from "./context.js";
import { fromHttpStatus, unexpectedResponse } from "./http.js";
import { connectionClosed, timeoutMessage } from "./local.js";
import { fromSystem } from "./system.js";
import { isRecord } from "./util.js";

/**
 * The v2 SDK's local errors (`SdkError`, `SdkHttpError` from `@modelcontextprotocol/client`):
 * string codes, never sent over the wire. Recognised by name and code, so a second bundled copy
 * of the SDK, or an error that crossed a worker boundary, is classified too.
 */
export function sdkV2Code(error: unknown): string | undefined {
  if (!isRecord(error) || typeof error.code !== "string") return undefined;
  return error.name === "SdkError" || error.name === "SdkHttpError" ? error.code : undefined;
}

/** Codes whose meaning does not depend on anything else the error carries. */
const PLAIN: Readonly<Record<string, Reason>> = {
  NOT_CONNECTED: "not_connected",
  NOT_INITIALIZED: "not_connected",
  CAPABILITY_NOT_SUPPORTED: "capability_missing",
  // A method the negotiated protocol version lacks (tasks/get toward a 2026 server, say).
  METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION: "capability_missing",
  INVALID_RESULT: "invalid_result",
  // The server's pagination never converged: what it sent is not a usable list.
  LIST_PAGINATION_EXCEEDED: "invalid_result",
  // The server kept asking for input past the client's round cap: someone must answer it differently.
  INPUT_REQUIRED_ROUNDS_EXCEEDED: "elicitation_required",
  CLIENT_HTTP_AUTHENTICATION: "unauthorized",
  CLIENT_HTTP_FORBIDDEN: "forbidden",
};

/**
 * Classifies a v2 SDK error. The caller's context has already been asked (our timer, the
 * caller's abort, a closed transport); what is left is what the error itself says.
 */
export function fromSdkV2(error: unknown, code: string, message: string, ctx: NormalizeContext): Classification {
  const data = (error as { data?: unknown }).data;
  const status = isRecord(data) && typeof data.status === "number" ? data.status : undefined;
  // The message ends with the body the transport read, where fromHttpStatus finds a JSON-RPC error;
  // the era probe's errors keep the body only in `data.text`.
  const body = isRecord(data) && typeof data.text === "string" && data.text.trim() && !message.includes(data.text) ? data.text : undefined;
  if (status !== undefined) return fromHttpStatus(status, body ? `${message}: ${body}` : message, ctx);
  const plain = PLAIN[code];
  if (plain) return { reason: plain, message };
  // "Unexpected content type: text/html": said as the other paths say it, with the URL and what to check.
  if (code === "CLIENT_HTTP_UNEXPECTED_CONTENT") return unexpectedResponse(ctx, message);
  switch (code) {
    case "REQUEST_TIMEOUT":
      // One code for our timer, the caller's abort and a broken stream; without context, the text tells.
      if (/^AbortError\b/.test(message) && data === undefined) return { reason: "cancelled", message: "The call was cancelled." };
      return { reason: "request_timeout", message: timeoutMessage(error, message) };
    case "CONNECTION_CLOSED":
      return connectionClosed(ctx, undefined);
    case "SEND_FAILED":
      // Nothing was delivered; the cause (a refused or reset socket) says why.
      return fromSystem(error, message, { ...ctx, notSent: true }) ?? { reason: "connection_reset", message, overrides: { outcome: "not_sent" } };
    case "UNSUPPORTED_RESULT_TYPE":
      return isRecord(data) && data.resultType === "input_required"
        ? { reason: "elicitation_required", message: `${message} The server needs input this client cannot give.` }
        : { reason: "invalid_result", message };
    case "ERA_NEGOTIATION_FAILED":
      // A network failure during the probe is that failure; otherwise the two sides share no era.
      return fromSystem(error, message, { ...ctx, notSent: true }) ?? { reason: "protocol_version_unsupported", message };
    default:
      return { reason: "unknown", message };
  }
}
