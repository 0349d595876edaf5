/**
 * What a connection and its transport share beyond JSON-RPC. Kept apart from transports.ts, which
 * builds the HTTP transports, so the pieces it builds them from (answerStreams.ts, httpProbe.ts)
 * can read it without importing their builder.
 */
import type { Transport } from "@modelcontextprotocol/client";
import type { ExitInfo, HttpResponseFacts } from "../../errors/normalize.js";
import type { ActivityClock } from "./keepAlive.js";
import type { ChaosProbe } from "./chaos.js";

/** What a connection learns from its transport beyond JSON-RPC. */
export interface TransportProbe extends ActivityClock, ChaosProbe {
  /** How the stdio process ended, once it has. */
  exit?: ExitInfo;
  /**
   * HTTP headers for one request alone, by the id its client gave it, while it is written: added
   * to that request's POST by this client's fetch, never to another's (our SSE transport's sends,
   * whose SDK send ignores a request's own headers, and a task's raw channel).
   */
  readonly requestHeaders?: Map<number | string, Record<string, string>>;
  /**
   * The per-call headers of each request in flight that had some, by its id, until the request is
   * done: its cancellation (`notifications/cancelled`) goes with them too, so a server that checks
   * every POST's Authorization hears a user's cancel under the user's token.
   */
  readonly identities?: Map<number | string, Record<string, string>>;
  /** How a request's own headers reach the server (ClientRequests.ts); set by a transport that carries them. */
  headerRoute?: "fetch" | "options" | "none";
  /** Set by our own transports, which tell each request's `onresumptiontoken` its id (call/requestScope.ts). */
  reportsIds?: boolean;
  /**
   * What the HTTP layer saw of responses that were not a plain MCP answer (a failed status, a page,
   * a stray JSON), by JSON-RPC request id; read once by the call that sent the request. The
   * client's own requests have numeric ids; its version probe (`server/discover`) a string one.
   */
  readonly responses: Map<number | string, HttpResponseFacts>;
  /**
   * Called with the JSON-RPC ids whose POST response stream broke (`error`) or ended (`undefined`)
   * and that the SDK will not resume; any of them still waiting lost its answer.
   */
  onStreamLost?: (ids: number[], error: unknown) => void;
  /** The legacy SSE transport's event stream broke or ended: every answer it was to carry is lost. */
  onEventStreamLost?: (transport: Transport, error: unknown) => void;
  /**
   * Closes the response stream of a request the caller gave up on (set by the streamable transport).
   * A server never answers a cancelled request, so its stream would stay open, with its
   * socket, until the session ends.
   */
  abandon?: (id: number) => void;
  /**
   * The server refused a new connection: the process that held this transport's session is
   * gone, and a stream of it the SDK would resume cannot be (a new process does not know it). Ends
   * the response stream of every request whose POST was answered and that still waits, reporting
   * it lost (set by the streamable transport).
   */
  serverGone?: (why: Error) => void;
}
