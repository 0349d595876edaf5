import type { Classification, NormalizeContext } from "./context.js";
import { isRecord } from "./util.js";

/** The parts of a Node or undici system error that classification reads. */
export interface SystemErrorInfo {
  code: string;
  syscall?: string;
  path?: string;
  /** The system error's own message, e.g. undici's "other side closed". */
  detail?: string;
  /** The host a DNS lookup was for. */
  hostname?: string;
}

/** Classifies the first system error found in the error's cause chain; `undefined` if there is none it knows. */
export function fromSystem(error: unknown, message: string, ctx: NormalizeContext): Classification | undefined {
  const sys = systemError(error);
  return sys ? fromSystemError(sys, message, ctx) : undefined;
}

/** Classifies one system error code; `undefined` for a code that names no transport failure. */
export function fromSystemError(sys: SystemErrorInfo, message: string, ctx: NormalizeContext): Classification | undefined {
  switch (sys.code) {
    case "ENOENT":
    case "EACCES":
      if (!sys.syscall?.startsWith("spawn")) return undefined;
      return {
        reason: "spawn_failed",
        message: `Could not start the server command '${sys.path ?? sys.syscall.slice(6)}': ${sys.code === "ENOENT" ? "command not found" : "permission denied"}.`,
        overrides: { data: { errno: sys.code, command: sys.path } },
      };
    case "ECONNREFUSED":
      return { reason: "connection_refused", message: `Connection refused${where(message) || (sys.path ? ` by ${sys.path}` : "")}.` };
    // No route: nothing was sent, and a route may come back (a VPN reconnecting, a network switch).
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return {
        reason: "connection_refused",
        message: `The server${host(ctx, sys)} is unreachable (${sys.code === "EHOSTUNREACH" ? "no route to the host" : "the network is unreachable"}).`,
      };
    case "ECONNRESET":
    case "ECONNABORTED":
    case "EPIPE":
    case "UND_ERR_SOCKET":
      return {
        reason: "connection_reset",
        // "fetch failed" says nothing; the socket error underneath says what happened.
        message: /^fetch failed$/i.test(message) ? `The connection was lost before the server answered (${sys.code}${sys.detail ? `: ${sys.detail}` : ""}).` : message,
        overrides: ctx.notSent ? { outcome: "not_sent" } : {},
      };
    case "ETIMEDOUT":
    case "UND_ERR_CONNECT_TIMEOUT":
      return { reason: "network_timeout", message };
    // undici's own limits once the request was written: the server may be running the tool.
    case "UND_ERR_HEADERS_TIMEOUT":
    case "UND_ERR_BODY_TIMEOUT":
      return {
        reason: "request_timeout",
        message: `The server${host(ctx, sys)} took the request but sent ${sys.code === "UND_ERR_HEADERS_TIMEOUT" ? "no response headers" : "no more of its response"} within the HTTP client's ${sys.code === "UND_ERR_HEADERS_TIMEOUT" ? "headersTimeout" : "bodyTimeout"} (${sys.detail ?? sys.code}).`,
        overrides: { kind: "transport", outcome: "unknown" },
      };
    case "EAI_AGAIN":
      return { reason: "dns_failure", message: dnsMessage(sys, message, "the resolver did not answer in time") };
    case "ENOTFOUND":
      return { reason: "dns_failure", message: dnsMessage(sys, message, "no such host"), overrides: { transient: false } };
    default:
      return undefined;
  }
}

/** " (host)" from the configured URL or the system error, for messages that need a place. */
function host(ctx: NormalizeContext, sys: SystemErrorInfo): string {
  const name = ctx.url ?? sys.hostname ?? sys.path;
  return name ? ` at ${name}` : "";
}

/** "fetch failed" names nothing; the message names the host that could not be resolved. */
function dnsMessage(sys: SystemErrorInfo, message: string, what: string): string {
  const name = sys.hostname ?? /getaddrinfo \w+ (\S+)/.exec(`${sys.detail ?? ""} ${message}`)?.[1];
  return `DNS lookup of ${name ? `'${name}'` : "the server's host"} failed: ${what} (${sys.code}).`;
}

function where(message: string): string {
  const m = /(\d{1,3}(?:\.\d{1,3}){3}:\d+|\[[0-9a-f:]+\]:\d+|localhost:\d+)/i.exec(message);
  return m ? ` by ${m[1]}` : "";
}

/** Walks `cause` chains and AggregateErrors for the first Node system error code. */
function systemError(error: unknown): SystemErrorInfo | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const e = queue.shift();
    if (!isRecord(e) || seen.has(e)) continue;
    seen.add(e);
    // getaddrinfo's codes (EAI_AGAIN, EAI_FAIL) carry an underscore; Node's own ERR_* codes are not system errors.
    if (typeof e.code === "string" && /^(E[A-Z]+|EAI_[A-Z]+|UND_ERR_[A-Z_]+)$/.test(e.code)) {
      const info: SystemErrorInfo = { code: e.code };
      if (typeof e.syscall === "string") info.syscall = e.syscall;
      if (typeof e.path === "string") info.path = e.path;
      if (typeof e.message === "string" && e.message) info.detail = e.message;
      if (typeof e.hostname === "string") info.hostname = e.hostname;
      if (info.code === "ECONNREFUSED" && typeof e.address === "string") info.path = `${e.address}:${String(e.port)}`;
      return info;
    }
    if (e.cause !== undefined) queue.push(e.cause);
    if (Array.isArray(e.errors)) queue.push(...e.errors);
  }
  return undefined;
}
