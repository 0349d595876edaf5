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
  /** A failed spawn's arguments, as given in `args`. */
  spawnargs?: string[];
}

const TLS_NOT_ESTABLISHED = /\bdisconnected before secure TLS connection was established\b/;

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
        message: `Could not start the server command '${sys.path ?? sys.syscall.slice(6)}': ${sys.code === "ENOENT" ? `command not found${argumentsHint(sys)}` : "permission denied"}.`,
        overrides: { data: { errno: sys.code, command: sys.path } },
      };
    case "ECONNREFUSED":
      return { reason: "connection_refused", message: `Connection refused${where(message) || (sys.path ? ` by ${sys.path}` : "")}.` };
    // No route. While connecting, nothing was sent and a route may come back (a VPN reconnecting, a
    // network switch); once the request was written, the server may have received it.
    case "EHOSTUNREACH":
    case "ENETUNREACH": {
      const what = sys.code === "EHOSTUNREACH" ? "no route to the host" : "the network is unreachable";
      if (sys.syscall === "connect") return { reason: "connection_refused", message: `The server${host(ctx, sys)} is unreachable (${what}).` };
      return lostAfterWrite(`The server${host(ctx, sys)} became unreachable after the request was written (${what}, ${syscallCode(sys)}).`, ctx);
    }
    case "ECONNRESET":
    case "ECONNABORTED":
    case "EPIPE":
    case "UND_ERR_SOCKET": {
      // "fetch failed" says nothing; the socket error underneath says what happened.
      const text = /^fetch failed$/i.test(message) ? `The connection was lost before the server answered (${sys.code}${sys.detail ? `: ${sys.detail}` : ""}).` : message;
      // Node's TLS socket closed during the handshake: no byte of the request was written.
      if (sys.detail && TLS_NOT_ESTABLISHED.test(sys.detail)) return { reason: "connection_reset", message: text, overrides: { outcome: "not_sent" } };
      return lostAfterWrite(text, ctx);
    }
    // Only a timeout while connecting proves nothing was written. A `read ETIMEDOUT` is the kernel
    // giving up on a request it wrote and never saw acknowledged, or on a connection gone silent
    // while the server worked: the server may have run the tool.
    case "ETIMEDOUT":
      if (sys.syscall === "connect") return { reason: "network_timeout", message: `Connecting to the server${host(ctx, sys)} timed out (${syscallCode(sys)}).` };
      return lostAfterWrite(`The connection to the server${host(ctx, sys)} timed out after the request was written (${syscallCode(sys)}); the server may have received it.`, ctx);
    // undici's connect timeout: the socket never connected.
    case "UND_ERR_CONNECT_TIMEOUT":
      return { reason: "network_timeout", message: /^fetch failed$/i.test(message) ? `Connecting to the server${host(ctx, sys)} timed out (${sys.code}${sys.detail ? `: ${sys.detail}` : ""}).` : message };
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

/**
 * `command: "node x.js"`: the whole line was looked for as one program's name. The fix is to
 * move the arguments to `args`, shown with the ones already there.
 */
function argumentsHint(sys: SystemErrorInfo): string {
  const words = sys.path?.trim().split(/\s+/) ?? [];
  if (words.length < 2) return "";
  const args = [...words.slice(1), ...(sys.spawnargs ?? [])];
  return ` (the command holds spaces: put its arguments in "args": { command: ${JSON.stringify(words[0])}, args: ${JSON.stringify(args)} })`;
}

/**
 * A connection lost with the request already written, or possibly written: `connection_reset`,
 * outcome unknown, unless the caller knows the request never left (`notSent`).
 */
export function lostAfterWrite(message: string, ctx: NormalizeContext): Classification {
  return { reason: "connection_reset", message, overrides: ctx.notSent ? { outcome: "not_sent" } : {} };
}

/** "read ETIMEDOUT", or the code alone when the syscall is not known. */
function syscallCode(sys: SystemErrorInfo): string {
  return sys.syscall ? `${sys.syscall} ${sys.code}` : sys.code;
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
      if (Array.isArray(e.spawnargs) && e.spawnargs.every((a) => typeof a === "string")) info.spawnargs = e.spawnargs as string[];
      // A connect's error names the address it tried (a spawn's `path` is its command).
      if (typeof e.address === "string" && !info.syscall?.startsWith("spawn")) info.path = `${e.address}:${String(e.port)}`;
      return info;
    }
    if (e.cause !== undefined) queue.push(e.cause);
    if (Array.isArray(e.errors)) queue.push(...e.errors);
  }
  return undefined;
}
