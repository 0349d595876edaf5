/**
 * The one table of failure reasons. Messages, hints and `shouldRetry` all read from it,
 * so a reason's default verdict is stated exactly once (see ../shared/ERRORS.md).
 */

/** Where a failure was decided. */
export type ErrorKind = "protocol" | "transport" | "domain" | "client";

/**
 * Did the server run the tool?
 * - `not_sent`: certainly not.
 * - `unknown`: it may have.
 * - `executed`: it ran and reported failure.
 */
export type Outcome = "not_sent" | "unknown" | "executed";

/** What the model should do next; each reason points at one. */
export type HintKey =
  | "fix_arguments"
  | "try_later"
  | "person_must_act"
  | "use_another_tool"
  | "stale_tool_list"
  | "read_tool_message"
  | "bad_result"
  | "cancelled"
  | "reconnect"
  | "check_endpoint"
  | "closed"
  | "list_prompts"
  | "list_resources"
  | "read_in_parts";

/**
 * What a failure says about the connection it happened on.
 * - `kept`: nothing; the connection stays in use.
 * - `request`: over HTTP only this request was lost (the session lives on); over stdio the
 *   pipe is the connection, so it is lost too.
 * - `lost`: the connection is gone; the next attempt reconnects first.
 */
export type ConnectionEffect = "kept" | "request" | "lost";

export interface ReasonInfo {
  /** The kind this reason has unless the failure says otherwise. */
  readonly kind: ErrorKind;
  /** Could the same call succeed later? The default `shouldRetry` verdict. */
  readonly transient: boolean;
  /** Did the server run the tool, by default, for this reason? */
  readonly outcome: Outcome;
  /** A short human label, used by `handleError`. */
  readonly label: string;
  /** What the model is told to do. */
  readonly hint: HintKey;
  /** What the failure says about the connection; see {@link ConnectionEffect}. */
  readonly connection: ConnectionEffect;
  /**
   * Decided by the caller, not by the server's health: never retried (whatever a custom
   * `shouldRetry` says), never answered by a fallback, never counted by the breaker.
   */
  readonly byCaller: boolean;
  /**
   * Decided by one of our own guards (the circuit breaker) without asking the server: a repeat
   * within the same call would meet the same guard, so it is never retried there.
   */
  readonly byGuard: boolean;
  /**
   * The failure is an answer from the server (it refused the session or the protocol version):
   * proof that it is up, so the breaker counts it as health, never as a failure.
   */
  readonly serverAnswered: boolean;
  /**
   * No server saw the request: the connection to it could not be made at all. Repeating such a
   * request adds no load to the server (the calls waiting on one connection share its one
   * reconnect), so the retry budget does not count it.
   */
  readonly unreached: boolean;
  /**
   * Retried at most once per call, whatever the retry policy's count: the server named state to
   * refresh (a cursor, a task), and a second refusal after the refresh will not change.
   */
  readonly once: boolean;
}

const reason = (
  kind: ErrorKind,
  transient: boolean,
  outcome: Outcome,
  label: string,
  hint: HintKey,
  facts: { connection?: ConnectionEffect; byCaller?: boolean; byGuard?: boolean; serverAnswered?: boolean; unreached?: boolean; once?: boolean } = {},
): ReasonInfo => ({
  kind,
  transient,
  outcome,
  label,
  hint,
  connection: facts.connection ?? "kept",
  byCaller: facts.byCaller ?? false,
  byGuard: facts.byGuard ?? false,
  serverAnswered: facts.serverAnswered ?? false,
  unreached: facts.unreached ?? false,
  once: facts.once ?? false,
});

/** Every reason this library produces, with its default verdict. */
export const REASONS = {
  // Protocol: JSON-RPC error responses from the server.
  parse_error: reason("protocol", false, "not_sent", "the server could not parse the request", "use_another_tool"),
  invalid_request: reason("protocol", false, "not_sent", "the server rejected the request as invalid", "use_another_tool"),
  method_not_found: reason("protocol", false, "not_sent", "the server does not support this method", "use_another_tool"),
  invalid_params: reason("protocol", false, "not_sent", "invalid arguments", "fix_arguments"),
  internal_error: reason("protocol", true, "unknown", "internal server error", "try_later"),
  // The 2026-07-28 spec: a receiver may assume nothing about a server-defined code, so it may have run.
  server_error: reason("protocol", true, "unknown", "server error", "try_later"),
  rate_limited: reason("protocol", true, "not_sent", "rate limited", "try_later"),
  elicitation_required: reason("protocol", false, "not_sent", "user action required", "person_must_act"),
  // 2026-07-28: the request's MCP headers disagreed with its body, even after the SDK's own re-send.
  header_mismatch: reason("protocol", false, "not_sent", "the request's headers did not match its body", "use_another_tool"),
  // -32022: the two sides share no protocol version (a server upgraded or rolled back under us). The
  // connection is dropped so the next attempt renegotiates the era; a second one in a row is permanent.
  // -32026 StaleState (Error Registry draft): the server rejected the request before acting because
  // state it names in `data.kind` (a cursor, a task, request state) is stale; refresh it and try once.
  stale_state: reason("protocol", true, "not_sent", "the server said the state this call relies on is stale", "try_later", { once: true, serverAnswered: true }),
  protocol_version_unsupported: reason("protocol", true, "not_sent", "no protocol version in common with the server", "use_another_tool", { connection: "lost", serverAnswered: true }),

  // Transport: the pipe or the HTTP layer failed.
  connection_closed: reason("transport", true, "unknown", "connection closed", "reconnect", { connection: "lost" }),
  not_connected: reason("transport", true, "not_sent", "not connected", "reconnect", { connection: "lost", unreached: true }),
  connection_refused: reason("transport", true, "not_sent", "connection refused", "try_later", { unreached: true }),
  connection_reset: reason("transport", true, "unknown", "connection reset", "try_later", { connection: "request" }),
  network_timeout: reason("transport", true, "not_sent", "network timeout", "try_later"),
  dns_failure: reason("transport", true, "not_sent", "DNS lookup failed", "try_later", { unreached: true }),
  // A certificate or handshake failure: no request was written, and no retry fixes a certificate.
  tls_error: reason("transport", false, "not_sent", "TLS error", "person_must_act"),
  spawn_failed: reason("transport", false, "not_sent", "the server process could not be started", "person_must_act"),
  // A stdio server that exited before it answered initialize: no call was made, and the same command fails the same way.
  server_start_failed: reason("transport", false, "not_sent", "the server process exited before it answered initialize", "person_must_act", { unreached: true }),
  // Something answered, but not an MCP server (a login page, a proxy's page): the request may have reached one.
  unexpected_response: reason("transport", false, "unknown", "the endpoint did not answer as an MCP server", "check_endpoint"),
  http_error: reason("transport", false, "not_sent", "HTTP error", "use_another_tool"),
  service_unavailable: reason("transport", true, "not_sent", "service unavailable", "try_later"),
  unauthorized: reason("transport", false, "not_sent", "unauthorized", "person_must_act"),
  forbidden: reason("transport", false, "not_sent", "forbidden", "person_must_act"),
  session_expired: reason("transport", true, "not_sent", "session expired", "reconnect", { connection: "lost", serverAnswered: true }),
  stream_error: reason("transport", true, "unknown", "stream error", "try_later", { connection: "request" }),

  // Client side: decided by us.
  request_timeout: reason("client", true, "unknown", "timed out", "try_later"),
  cancelled: reason("client", false, "unknown", "cancelled", "cancelled", { byCaller: true }),
  // The caller closed the toolkit: nothing about the server's health, and nothing a retry can fix.
  closed: reason("client", false, "not_sent", "the toolkit was closed", "closed", { byCaller: true }),
  invalid_arguments: reason("client", false, "not_sent", "invalid arguments", "fix_arguments"),
  invalid_result: reason("client", false, "executed", "invalid result from the server", "bad_result"),
  output_schema_mismatch: reason("client", false, "executed", "result does not match the output schema", "bad_result"),
  capability_missing: reason("client", false, "not_sent", "capability not supported by the server", "use_another_tool"),
  interceptor_error: reason("client", false, "not_sent", "a beforeToolCall or afterToolCall hook failed", "use_another_tool"),
  bulkhead_full: reason("client", true, "not_sent", "too many calls in flight to the server", "try_later", { byGuard: true }),
  circuit_open: reason("client", true, "not_sent", "circuit open: the server is failing", "try_later", { byGuard: true }),

  // Tasks: the server's own word on a task-augmented call after it created the task. The task may
  // have done some or all of its work, and repeating the call starts it again from the beginning.
  task_cancelled: reason("protocol", false, "unknown", "the server cancelled the task", "use_another_tool"),
  // The task id is unknown to the server (its ttl ran out, or it restarted): nothing is left to ask about.
  task_lost: reason("protocol", false, "unknown", "the server no longer knows the task", "use_another_tool"),

  // Domain: the tool ran and answered `isError: true`.
  tool_not_found: reason("domain", false, "not_sent", "tool not found", "stale_tool_list"),
  tool_error: reason("domain", false, "executed", "tool error", "read_tool_message"),

  // Prompts: a prompts/get naming a prompt the server does not have (-32602): nothing ran.
  prompt_not_found: reason("protocol", false, "not_sent", "prompt not found", "list_prompts"),

  // Resources: a resources/read of a URI the server does not have (-32602 with data.uri, -32002): nothing ran.
  resource_not_found: reason("protocol", false, "not_sent", "resource not found", "list_resources"),
  // A read asked for more than the client's budget for one answer (read_mcp_resource's `limit`): refused before sending.
  resource_too_large: reason("client", false, "not_sent", "resource part past the client's budget", "read_in_parts"),
  // A resource subscription's stream ended or dropped (a server restart, a cut stream): its change
  // notifications are lost until the client subscribes or listens again, and re-reads what changed.
  subscription_lost: reason("transport", true, "not_sent", "resource subscription lost", "reconnect"),

  unknown: reason("client", false, "unknown", "unknown error", "use_another_tool"),
} as const satisfies Record<string, ReasonInfo>;

/** A stable snake_case name for a failure. */
export type Reason = keyof typeof REASONS;

/** All reasons, for iteration in docs and tests. */
export const REASON_NAMES = Object.keys(REASONS) as Reason[];

/** What the model reads after the message, one sentence per hint. */
export const HINTS: Record<HintKey | "unknown_outcome" | "retries_exhausted", string> = {
  fix_arguments: "Fix the arguments to match the tool's input schema, then call it again.",
  try_later: "This is likely temporary: try again later or use another tool.",
  person_must_act: "Do not retry: a person must act before this can work.",
  use_another_tool: "Do not retry this call unchanged; use another tool or approach.",
  stale_tool_list: "The tool is no longer available on the server; use another tool.",
  read_tool_message: "The tool ran and reported this error; change the request based on the message before trying again.",
  bad_result: "The server sent a malformed result; do not retry this call, use another tool.",
  cancelled: "The call was cancelled; do not retry unless asked to.",
  reconnect: "The connection to the server was lost; try again shortly.",
  check_endpoint: "Do not retry: the server's URL or a proxy in front of it must be checked.",
  closed: "The toolkit was closed; this tool can no longer be called.",
  list_prompts: "The server has no prompt by that name: list its prompts and use one of their names.",
  list_resources: "No resource has that URI: call list_mcp_resources to see the URIs there are, then read one of them.",
  read_in_parts: "Read it in parts: call read_mcp_resource again with an offset and a limit within the budget.",
  unknown_outcome:
    "The outcome is unknown: the tool may have run. Check whether it took effect before calling it again.",
  retries_exhausted: "Retries are exhausted: try again later or use another tool.",
};

export function isReason(name: unknown): name is Reason {
  return typeof name === "string" && Object.hasOwn(REASONS, name);
}

/** The table's facts for a reason; one from outside the table (a cast, a deserialized error) reads as `unknown`. */
export function reasonInfo(name: string): ReasonInfo {
  return isReason(name) ? REASONS[name] : REASONS.unknown;
}

/** Was this failure the caller's decision (a cancel) rather than news about the server? */
export function decidedByCaller(name: string): boolean {
  return reasonInfo(name).byCaller;
}
