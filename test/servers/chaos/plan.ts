/**
 * What happens to each call: a pure function of (seed, request key, transport), shared by whoever
 * injects the fault (the chaos server, its HTTP front, the fault proxy in front of that) and the
 * driver, which predicts what the toolkit must answer. The expected reasons and outcomes are
 * those of ERRORS.md.
 */
import type { Outcome, Reason } from "../../../src/index.js";

export type ChaosTransport = "stdio" | "http" | "memory";

export const FAULTS = [
  "ok",
  "slow",
  "is_error",
  "protocol_invalid_params",
  "protocol_internal",
  "protocol_server",
  "protocol_elicitation",
  "protocol_rate_limited",
  "http_429",
  "http_503",
  "hang",
  "exit",
  "socket_drop",
  "malformed",
  "huge_error",
  "leaky_error",
  // Dealt by the reverse proxy in front of the HTTP server (test/servers/proxy/faultProxy.ts):
  // "before" it forwards (the server never sees the request) or "after" (the server ran the tool).
  "proxy_502_before",
  "proxy_502_after",
  "proxy_503_before",
  "proxy_503_after",
  "proxy_504_before",
  "proxy_504_after",
  "cf_521_before",
  "cf_522_before",
  "cf_520_after",
  "cf_524_after",
  "retry_after_seconds",
  "retry_after_date",
  "html_200",
  "json_200",
  "stall",
  "reset_mid_body",
  "end_mid_body",
  // Never dealt by the mix: the spaced writes behind the idle-closing proxy (keys RACE_PREFIX…).
  "keepalive_race",
] as const;

export type Fault = (typeof FAULTS)[number];

export interface FaultInfo {
  /** Where the fault can be injected. */
  transports: readonly ChaosTransport[];
  /** A transient fault fires only on the first `transientAttempts` attempts of a key. */
  transient: boolean;
  /** What the toolkit must report when the fault is not (or cannot be) retried away. */
  reason: Reason | "ok";
  /** Does the tool body run (its side effect happen) when the fault fires? */
  executes: boolean;
  /**
   * The failure's outcome as the caller gets it (ERRORS.md). `not_sent` makes a repeat safe for a
   * tool that is not idempotent.
   */
  outcome: Outcome;
  /** Who makes the fault: the MCP server, its HTTP front, the reverse proxy, or the network. */
  by: "server" | "front" | "proxy" | "network";
  /** The HTTP status the failure carries. */
  status?: number;
  /** Does the fault break the connection for every call in flight on it? */
  disruptive: boolean;
}

const ALL: readonly ChaosTransport[] = ["stdio", "http", "memory"];
const HTTP: readonly ChaosTransport[] = ["http"];
const f = (
  transports: readonly ChaosTransport[],
  transient: boolean,
  reason: Reason | "ok",
  executes: boolean,
  outcome: Outcome,
  extra: Partial<Pick<FaultInfo, "by" | "status" | "disruptive">> = {},
): FaultInfo => ({ transports, transient, reason, executes, outcome, by: "server", disruptive: false, ...extra });
/** A fault of the reverse proxy, with the status it answers. */
const proxy = (transient: boolean, reason: Reason, executes: boolean, outcome: Outcome, status?: number) =>
  f(HTTP, transient, reason, executes, outcome, { by: "proxy", ...(status !== undefined ? { status } : {}) });

export const FAULT_INFO: Record<Fault, FaultInfo> = {
  ok: f(ALL, false, "ok", true, "executed"),
  // Answers after longer than the per-attempt timeout, sending progress that keeps it alive.
  slow: f(ALL, false, "ok", true, "executed"),
  is_error: f(ALL, false, "tool_error", true, "executed"),
  protocol_invalid_params: f(ALL, false, "invalid_params", false, "not_sent"),
  protocol_internal: f(ALL, true, "internal_error", true, "unknown"),
  protocol_server: f(ALL, true, "server_error", true, "unknown"),
  protocol_elicitation: f(ALL, false, "elicitation_required", false, "not_sent"),
  protocol_rate_limited: f(ALL, true, "rate_limited", false, "not_sent"),
  http_429: f(HTTP, true, "rate_limited", false, "not_sent", { by: "front", status: 429 }),
  http_503: f(HTTP, true, "service_unavailable", false, "not_sent", { by: "front", status: 503 }),
  hang: f(ALL, true, "request_timeout", true, "unknown"),
  exit: f(["stdio"], true, "connection_closed", true, "unknown", { disruptive: true }),
  socket_drop: f(HTTP, true, "stream_error", true, "unknown"),
  malformed: f(ALL, false, "invalid_result", true, "executed"),
  huge_error: f(ALL, false, "tool_error", true, "executed"),
  leaky_error: f(ALL, false, "tool_error", true, "executed"),
  // A 502 or 504 is never proof that nothing ran, even when the proxy failed before forwarding.
  proxy_502_before: proxy(true, "server_error", false, "unknown", 502),
  proxy_502_after: proxy(true, "server_error", true, "unknown", 502),
  proxy_503_before: proxy(true, "service_unavailable", false, "not_sent", 503),
  // Envoy's "upstream … reset before headers … connection termination": forwarded, then lost.
  proxy_503_after: proxy(true, "server_error", true, "unknown", 503),
  proxy_504_before: proxy(true, "server_error", false, "unknown", 504),
  proxy_504_after: proxy(true, "server_error", true, "unknown", 504),
  cf_521_before: proxy(true, "service_unavailable", false, "not_sent", 521),
  cf_522_before: proxy(true, "service_unavailable", false, "not_sent", 522),
  cf_520_after: proxy(true, "server_error", true, "unknown", 520),
  cf_524_after: proxy(true, "server_error", true, "unknown", 524),
  // A 503 with `Retry-After: 1`, and a 429 with Retry-After as an HTTP date.
  retry_after_seconds: proxy(true, "service_unavailable", false, "not_sent", 503),
  retry_after_date: proxy(true, "rate_limited", false, "not_sent", 429),
  // Not MCP at all: repeating cannot help, and a person must fix the URL or the proxy.
  html_200: proxy(false, "unexpected_response", false, "unknown", 200),
  json_200: proxy(false, "unexpected_response", false, "unknown", 200),
  // Held without forwarding until our own timer gives up.
  stall: proxy(true, "request_timeout", false, "unknown"),
  // Forwarded, the server answered, and the answer stream broke (reset) or ended cleanly without it.
  reset_mid_body: proxy(true, "stream_error", true, "unknown"),
  end_mid_body: proxy(true, "stream_error", true, "unknown"),
  // An idle-closing proxy met on every call; the toolkit must make it invisible.
  keepalive_race: f([], false, "ok", true, "executed", { by: "network" }),
};

/** Keys of the keep-alive race's writes: dealt `keepalive_race`, whatever the mix. */
export const RACE_PREFIX = "race-";

export type FaultMix = Partial<Record<Fault, number>>;

/** Relative weights; faults a transport cannot produce are left out and the rest renormalised. */
export const DEFAULT_MIX: Readonly<Record<Fault, number>> = Object.freeze({
  ok: 38,
  slow: 4,
  is_error: 6,
  protocol_invalid_params: 3,
  protocol_internal: 5,
  protocol_server: 4,
  protocol_elicitation: 2,
  protocol_rate_limited: 3,
  http_429: 5,
  http_503: 4,
  hang: 5,
  exit: 3,
  socket_drop: 4,
  malformed: 4,
  huge_error: 2,
  leaky_error: 5,
  proxy_502_before: 2,
  proxy_502_after: 2,
  proxy_503_before: 2,
  proxy_503_after: 2,
  proxy_504_before: 2,
  proxy_504_after: 2,
  cf_521_before: 2,
  cf_522_before: 2,
  cf_520_after: 2,
  cf_524_after: 2,
  retry_after_seconds: 2,
  retry_after_date: 2,
  html_200: 2,
  json_200: 2,
  stall: 2,
  reset_mid_body: 2,
  end_mid_body: 2,
  keepalive_race: 0,
});

/** FNV-1a, then a murmur3 finaliser: a stable, well-mixed 32-bit hash. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A number in [0, 1) from the seed and any parts. */
export function unit(seed: number, ...parts: string[]): number {
  return hash32(`${seed}|${parts.join("|")}`) / 2 ** 32;
}

/** The fault a key gets on a transport. */
export function faultFor(seed: number, key: string, transport: ChaosTransport, mix: FaultMix = DEFAULT_MIX): Fault {
  if (key.startsWith(RACE_PREFIX)) return "keepalive_race";
  const choices = FAULTS.filter((fault) => (mix[fault] ?? 0) > 0 && FAULT_INFO[fault].transports.includes(transport));
  if (choices.length === 0) return "ok";
  const total = choices.reduce((sum, fault) => sum + (mix[fault] ?? 0), 0);
  let x = unit(seed, "fault", key) * total;
  for (const fault of choices) {
    x -= mix[fault] ?? 0;
    if (x < 0) return fault;
  }
  return choices[choices.length - 1]!;
}

/** Does the key's fault fire on this attempt (1-based)? Transient faults stop after a few attempts. */
export function firesOn(fault: Fault, attempt: number, transientAttempts = 1): boolean {
  return !FAULT_INFO[fault].transient || attempt <= transientAttempts;
}

/**
 * What the toolkit must answer for a fault: "ok" or the reason in the ToolMessage artifact.
 * A transient fault is recovered when the retry policy repeats it (not sent, or the tool is
 * idempotent) and the retries outlast the fault.
 */
export function expectedOutcome(fault: Fault, idempotent: boolean, retries: number, transientAttempts = 1): Reason | "ok" {
  const info = FAULT_INFO[fault];
  if (!info.transient) return info.reason;
  const repeatable = info.outcome === "not_sent" || idempotent;
  return repeatable && retries >= transientAttempts ? "ok" : info.reason;
}

/** The failure the toolkit must report for a fault, or "ok": reason, outcome, status and attempts. */
export interface Verdict {
  reason: Reason | "ok";
  outcome?: Outcome;
  status?: number;
  attempts?: number;
}

export function expectedVerdict(fault: Fault, idempotent: boolean, retries: number, transientAttempts = 1): Verdict {
  const reason = expectedOutcome(fault, idempotent, retries, transientAttempts);
  if (reason === "ok") return { reason };
  const info = FAULT_INFO[fault];
  // Retried only when repeating is safe; a failure that was retried ran out of attempts.
  const retried = info.transient && (info.outcome === "not_sent" || idempotent);
  return { reason, outcome: info.outcome, ...(info.status !== undefined ? { status: info.status } : {}), attempts: retried ? retries + 1 : 1 };
}

/**
 * How often a tool that is not idempotent runs under a fault: once when the call succeeds or the
 * fault came after the tool ran, never when it came before.
 */
export function expectedWriteRuns(fault: Fault, retries: number, transientAttempts = 1): 0 | 1 {
  return expectedOutcome(fault, false, retries, transientAttempts) === "ok" || FAULT_INFO[fault].executes ? 1 : 0;
}
