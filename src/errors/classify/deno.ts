/**
 * Deno's fetch (hyper and rustls underneath) puts no code on its errors: a failure is a
 * TypeError "fetch failed" whose cause's message is the Rust error chain, e.g.
 * "error sending request for url (…): client error (Connect): tcp connect error: Connection
 * refused (os error 111)". Each shape is read into Node's terms (a system error code, a TLS
 * failure, a blocked port), so Node's rules decide the reason and the outcome. The patterns are
 * narrow: the OS's error text together with its number, hyper's and rustls's own phrases.
 */
import type { Classification, NormalizeContext } from "./context.js";
import { blockedPort } from "./fetch.js";
import { fromSystemError, type SystemErrorInfo } from "./system.js";
import { CAUSES, tlsFailure } from "./tls.js";
import { isRecord } from "./util.js";

/** Deno refuses the Fetch standard's bad ports itself, on the TypeError, with no cause. */
const BLOCKED_PORT = /^Fetch failed: Requests to port (\d+) are blocked$/;
/** hyper's connect phase: nothing of the request was written. */
const CONNECTING = /\bclient error \(Connect\): /;
/** Rust's io::Error: the OS's text, then its number. */
const OS_ERROR = /(?:^|: )([^:]+?) \(os error (\d+)\)/;
/** hyper: the connection closed before the response was complete (Node's undici: "other side closed"). */
const CLOSED_EARLY = /\bclient error \(SendRequest\): connection closed before message completed$/;
/** The response's body could not be read: the request was answered, then the connection went. */
const BODY_READ = /^error reading a body from connection\b/;
const DNS = /\bclient error \(Connect\): dns error: (?:failed to lookup address information: )?(.+)$/;
const TLS_CERT = /\bclient error \(Connect\): invalid peer certificate: (.+)$/;
/** rustls read a record that is not TLS: a plain HTTP server on an https URL. */
const NOT_TLS = /\bclient error \(Connect\): received corrupt message of type InvalidContentType$/;
const URL_IN = /\bfor (?:url \()?(https?:\/\/[^\s)]+)/;

/** Rust's texts for the socket errors Node names by code, with their numbers on Linux, macOS and Windows. */
const OS_ERRORS: [code: string, text: RegExp, numbers: number[]][] = [
  ["ECONNREFUSED", /^Connection refused$|actively refused it/, [111, 61, 10061]],
  ["ECONNRESET", /^Connection reset by peer$|forcibly closed by the remote host/, [104, 54, 10054]],
  ["ECONNABORTED", /^Software caused connection abort$|established connection was aborted/, [103, 53, 10053]],
  ["EPIPE", /^Broken pipe$/, [32]],
  ["ETIMEDOUT", /^(?:Connection|Operation) timed out$|did not properly respond after a period of time/, [110, 60, 10060]],
  ["EHOSTUNREACH", /^No route to host$|unreachable host/, [113, 65, 10065]],
  ["ENETUNREACH", /^Network is unreachable$|unreachable network/, [101, 51, 10051]],
];

/** getaddrinfo's texts (glibc, macOS, Windows) for "no such host"; any other DNS text reads as a lookup that may work later. */
const NO_SUCH_HOST = /^(?:Name or service not known|nodename nor servname provided, or not known|No address associated with hostname|No such host is known\.? \(os error 11001\))$/;

const TRUST = "If you trust it, give its CA certificate to Deno with DENO_CERT=/path/to/ca.pem (or `--cert`), or pass a `fetch` that trusts it.";
const NOT_TRUSTED = "the server's certificate is not signed by a certificate authority Deno trusts";

/** rustls's certificate errors, by the name its message carries. */
const RUSTLS: [pattern: RegExp, name: string, what: string, remedy: string][] = [
  [/\bCaUsedAsEndEntity\b/, "CaUsedAsEndEntity", "the server's certificate is a CA certificate used as its own (a self-signed certificate)", TRUST],
  [/\bUnknownIssuer\b/, "UnknownIssuer", NOT_TRUSTED, TRUST],
  [/\bExpired|\bcertificate expired\b/, "Expired", CAUSES.CERT_HAS_EXPIRED!.what, CAUSES.CERT_HAS_EXPIRED!.remedy!],
  [/\bNotValidYet|\bcertificate not valid yet\b/, "NotValidYet", CAUSES.CERT_NOT_YET_VALID!.what, CAUSES.CERT_NOT_YET_VALID!.remedy!],
  [/\bNotValidForName|\bcertificate not valid for name\b/, "NotValidForName", CAUSES.ERR_TLS_CERT_ALTNAME_INVALID!.what, CAUSES.ERR_TLS_CERT_ALTNAME_INVALID!.remedy!],
  [/\bRevoked\b/, "Revoked", CAUSES.CERT_REVOKED!.what, CAUSES.CERT_REVOKED!.remedy!],
];

/** Deno's failure in Node's terms; `undefined` when the error is none of Deno's shapes, or carries a code anywhere. */
export function fromDeno(error: unknown, message: string, ctx: NormalizeContext): Classification | undefined {
  const texts = codelessTexts(error);
  if (!texts) return undefined;
  for (const text of texts) {
    const blocked = BLOCKED_PORT.exec(text);
    if (blocked) return blockedPort(Number(blocked[1]), ctx);
    const cert = TLS_CERT.exec(text);
    if (cert) {
      const known = RUSTLS.find(([pattern]) => pattern.test(cert[1]!));
      if (known) return tlsFailure(known[1], known[2], known[3], ctx);
      return tlsFailure("invalid peer certificate", `rustls refused the server's certificate (${cert[1]})`, TRUST, ctx);
    }
    if (NOT_TLS.test(text)) return tlsFailure("InvalidContentType", CAUSES.ERR_SSL_WRONG_VERSION_NUMBER!.what, CAUSES.ERR_SSL_WRONG_VERSION_NUMBER!.remedy!, ctx);
    const sys = systemErrorIn(text);
    if (sys) return fromSystemError(sys, message, ctx);
  }
  return undefined;
}

/** The messages of the error and its causes, or `undefined` if any of them carries a code: a code is read, never its text. */
function codelessTexts(error: unknown): string[] | undefined {
  const texts: string[] = [];
  const seen = new Set<unknown>();
  for (let e: unknown = error; isRecord(e) && !seen.has(e); e = e.cause) {
    seen.add(e);
    if (e.code !== undefined) return undefined;
    if (typeof e.message === "string") texts.push(e.message);
  }
  return texts;
}

/** The Node system error a Deno message stands for. */
function systemErrorIn(text: string): SystemErrorInfo | undefined {
  const url = URL_IN.exec(text)?.[1];
  const where = url ? hostOf(url) : undefined;
  const dns = DNS.exec(text);
  if (dns) {
    const what = dns[1]!;
    return { code: NO_SUCH_HOST.test(what) ? "ENOTFOUND" : "EAI_AGAIN", syscall: "getaddrinfo", detail: what, ...(where ? { hostname: where.hostname } : {}) };
  }
  if (CLOSED_EARLY.test(text)) return { code: "UND_ERR_SOCKET", detail: "connection closed before message completed" };
  const os = OS_ERROR.exec(text);
  if (os) {
    const number = Number(os[2]);
    const found = OS_ERRORS.find(([, words, numbers]) => numbers.includes(number) && words.test(os[1]!));
    if (!found) return undefined;
    // Only a failure while connecting proves that nothing was written.
    const connecting = CONNECTING.test(text);
    return { code: found[0], detail: `${os[1]} (os error ${number})`, ...(connecting ? { syscall: "connect" } : {}), ...(where ? { path: where.host } : {}) };
  }
  if (BODY_READ.test(text)) return { code: "ECONNRESET", syscall: "read", detail: text };
  return undefined;
}

function hostOf(url: string): { host: string; hostname: string } | undefined {
  try {
    const parsed = new URL(url);
    return { host: parsed.host, hostname: parsed.hostname };
  } catch {
    return undefined;
  }
}
