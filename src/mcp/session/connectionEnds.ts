import { McpToolError } from "../../errors/McpToolError.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { withDeadline } from "../../policy/abort.js";

// Why a call's controller was aborted by its connection rather than by its caller or its timer;
// the call reads the reason to classify its own failure.

/** The reason a call's controller is aborted with when its answer stream broke or ended without the answer. */
export class StreamLostError extends Error {
  override readonly name = "StreamLostError";
  constructor(
    cause: unknown,
    /** Did the whole connection die with the stream (the legacy SSE transport's event stream)? */
    readonly connectionDied = false,
  ) {
    super(streamLostMessage(cause, connectionDied), cause === undefined ? undefined : { cause });
  }
}

function streamLostMessage(cause: unknown, connectionDied: boolean): string {
  const what = connectionDied ? "The server's event stream" : "The response stream";
  if (cause === undefined) return `${what} ended before the server answered.`;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return `${what} broke before the server answered (${detail}).`;
}

/** The reason in-flight calls are aborted with when the toolkit closes under them: made in policy/abort.ts, where every wait reads it. */
export { ToolkitClosedError } from "../../policy/abort.js";

/** How long close() waits for a server to acknowledge ending its session (HTTP DELETE) before closing anyway. */
const TERMINATE_TIMEOUT_MS = 1000;

/** Sends the session's DELETE, waiting at most TERMINATE_TIMEOUT_MS (closing the transport then aborts it). */
export async function terminateSession(transport: StreamableHTTPClientTransport): Promise<void> {
  // A server that does not support it answers 405, which the SDK accepts; any other failure changes nothing.
  await withDeadline(TERMINATE_TIMEOUT_MS, undefined, () => transport.terminateSession(), () => undefined).catch(() => undefined);
}

/** A call that asks a closed toolkit's connection for a client: nothing was sent. */
export function closedError(serverName: string): McpToolError {
  return McpToolError.of("closed", `The toolkit was closed; server '${serverName}' can no longer be called.`, { serverName, outcome: "not_sent" });
}
