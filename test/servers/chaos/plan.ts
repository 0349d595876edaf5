/**
 * What the chaos server does to each call: a pure function of (seed, request key, transport),
 * shared by the server (which injects the fault) and the driver (which predicts the outcome).
 */
import type { Reason } from "../../../src/index.js";

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
  /** Is a repeat safe for a tool that is not idempotent? (The failure's outcome is `not_sent`.) */
  notSent: boolean;
  /** Does the fault break the connection for every call in flight on it? */
  disruptive: boolean;
}

const ALL: readonly ChaosTransport[] = ["stdio", "http", "memory"];
const f = (transports: readonly ChaosTransport[], transient: boolean, reason: Reason | "ok", executes: boolean, notSent: boolean, disruptive = false): FaultInfo => ({
  transports,
  transient,
  reason,
  executes,
  notSent,
  disruptive,
});

export const FAULT_INFO: Record<Fault, FaultInfo> = {
  ok: f(ALL, false, "ok", true, false),
  // Answers after longer than the per-attempt timeout, sending progress that keeps it alive.
  slow: f(ALL, false, "ok", true, false),
  is_error: f(ALL, false, "tool_error", true, false),
  protocol_invalid_params: f(ALL, false, "invalid_params", false, true),
  protocol_internal: f(ALL, true, "internal_error", true, false),
  protocol_server: f(ALL, true, "server_error", true, false),
  protocol_elicitation: f(ALL, false, "elicitation_required", false, true),
  protocol_rate_limited: f(ALL, true, "rate_limited", false, true),
  http_429: f(["http"], true, "rate_limited", false, true),
  http_503: f(["http"], true, "service_unavailable", false, true),
  hang: f(ALL, true, "request_timeout", true, false),
  exit: f(["stdio"], true, "connection_closed", true, false, true),

  socket_drop: f(["http"], true, "stream_error", true, false),
  malformed: f(ALL, false, "invalid_result", true, false),
  huge_error: f(ALL, false, "tool_error", true, false),
  leaky_error: f(ALL, false, "tool_error", true, false),
};

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
  const repeatable = info.notSent || idempotent;
  return repeatable && retries >= transientAttempts ? "ok" : info.reason;
}
