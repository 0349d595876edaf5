import type { Classification, NormalizeContext } from "./context.js";
import { dropUndefined, isRecord, stripMcpPrefix } from "./util.js";

// Failures our own side saw: the transport closing under a call, our timer firing. The caller's
// context reports them first; the SDK reports the same ones locally under these two codes.

/** The SDK v1's local ConnectionClosed code (a server may send it too, meaning something else). */
export const SDK_CONNECTION_CLOSED = -32000;
/** The SDK v1's local RequestTimeout code, also used for a local abort (and by servers for their own errors). */
export const SDK_REQUEST_TIMEOUT = -32001;

/**
 * `connection_closed`, with what is known about the transport's end (its last error, the
 * process's exit code or signal, the tail of its stderr) in the message and in `data`.
 */
export function connectionClosed(ctx: NormalizeContext, code: number | undefined): Classification {
  const exit = ctx.exit;
  const tooLarge = exit?.transportError ? OVERSIZE.exec(exit.transportError) : null;
  if (tooLarge) return oversizeAnswer(Number(tooLarge[1]));
  const parts = ["The connection to the server closed during the call."];
  if (exit?.transportError) parts.push(`The transport failed first: ${exit.transportError}.`);
  if (exit?.exitCode !== undefined && exit.exitCode !== null) parts.push(`The server process exited with code ${exit.exitCode}.`);
  else if (exit?.signal) parts.push(`The server process was killed by ${exit.signal}.`);
  if (exit?.stderrTail) parts.push(`Last stderr: ${exit.stderrTail}`);
  const data = exit ? dropUndefined({ exitCode: exit.exitCode, signal: exit.signal, stderr: exit.stderrTail, transportError: exit.transportError }) : undefined;
  return {
    reason: "connection_closed",
    message: parts.join(" "),
    overrides: dropUndefined({ code: code ?? SDK_CONNECTION_CLOSED, data, outcome: ctx.notSent ? ("not_sent" as const) : undefined }),
  };
}

/** What the SDK's stdio read buffer throws for a message past its limit, and then closes the transport. */
const OVERSIZE = /ReadBuffer exceeded maximum size of (\d+) bytes/;

/**
 * A message larger than the client takes in one (a whole large file): the same request would
 * fail the same way, so it is no transient loss of the connection. Its outcome stays unknown:
 * the message was never read, so nothing says it was this call's answer (it most likely was).
 */
function oversizeAnswer(limit: number): Classification {
  return {
    reason: "invalid_result",
    message: `The server's answer was larger than the client accepts in one message (${limit} bytes over stdio), so it was dropped and the connection started again. Ask for less (a part, a page, a head or tail), or raise the server's maxMessageBytes.`,
    overrides: { outcome: "unknown", data: { maxMessageBytes: limit } },
  };
}

/** The SDK's local timeout data says which limit ran out (`timeout` or `maxTotalTimeout`; ours also `deadline`). */
export function isLocalTimeout(data: unknown): boolean {
  return isRecord(data) && (typeof data.timeout === "number" || typeof data.maxTotalTimeout === "number" || typeof data.deadline === "number");
}

/** Names the limit that ran out when the SDK's timeout data says it; else the error's own message. */
export function timeoutMessage(error: unknown, fallback: string): string {
  const data = (error as { data?: unknown } | undefined)?.data;
  if (isRecord(data) && typeof data.maxTotalTimeout === "number") {
    return `The call exceeded its maximum total time of ${data.maxTotalTimeout} ms.`;
  }
  if (isRecord(data) && typeof data.timeout === "number") return `The call timed out after ${data.timeout} ms.`;
  if (isRecord(data) && typeof data.deadline === "number") return `The call's deadline of ${data.deadline} ms ran out.`;
  return fallback ? stripMcpPrefix(fallback) : "The call timed out.";
}
