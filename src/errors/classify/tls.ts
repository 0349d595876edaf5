import type { Classification, NormalizeContext } from "./context.js";
import { isRecord } from "./util.js";

// TLS failures: the certificate or the handshake. No request was written, and no retry fixes a
// certificate, so each message says what a person must do.

const UNTRUSTED = "is not signed by a certificate authority Node trusts";
const REMEDY = "If you trust it, give its CA certificate to Node with NODE_EXTRA_CA_CERTS=/path/to/ca.pem (read at startup), or pass a `fetch` whose dispatcher trusts it.";

/** OpenSSL's and Node's codes, and what each means for the person reading. */
export const CAUSES: Record<string, { what: string; remedy?: string }> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: { what: "the server's certificate is self-signed", remedy: REMEDY },
  SELF_SIGNED_CERT_IN_CHAIN: { what: "the server's certificate chain ends in a self-signed certificate", remedy: REMEDY },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: { what: `the server's certificate ${UNTRUSTED}`, remedy: REMEDY },
  UNABLE_TO_GET_ISSUER_CERT: { what: `the server's certificate ${UNTRUSTED}`, remedy: REMEDY },
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: { what: `the server's certificate ${UNTRUSTED}`, remedy: REMEDY },
  CERT_UNTRUSTED: { what: `the server's certificate ${UNTRUSTED}`, remedy: REMEDY },
  CERT_HAS_EXPIRED: { what: "the server's certificate has expired", remedy: "The server's operator must renew it." },
  CERT_NOT_YET_VALID: { what: "the server's certificate is not valid yet", remedy: "Check this machine's clock, or ask the server's operator." },
  CERT_REVOKED: { what: "the server's certificate was revoked", remedy: "The server's operator must replace it." },
  ERR_TLS_CERT_ALTNAME_INVALID: { what: "the server's certificate does not name this host", remedy: "Use the host name the certificate was issued for." },
  ERR_SSL_WRONG_VERSION_NUMBER: { what: "the server does not speak TLS on this port (plain HTTP on an https URL?)", remedy: "Use http:// for this port, or the server's TLS port." },
};

/**
 * OpenSSL's and Node's messages, for errors that kept only the text: the `eventsource` package
 * flattens a fetch failure into "SSE error: TypeError: fetch failed: self-signed certificate".
 */
const TEXT_CODES: [RegExp, string][] = [
  [/\bself[- ]signed certificate in certificate chain\b/i, "SELF_SIGNED_CERT_IN_CHAIN"],
  [/\bself[- ]signed certificate\b/i, "DEPTH_ZERO_SELF_SIGNED_CERT"],
  [/\bunable to verify the first certificate\b/i, "UNABLE_TO_VERIFY_LEAF_SIGNATURE"],
  [/\bunable to get local issuer certificate\b/i, "UNABLE_TO_GET_ISSUER_CERT_LOCALLY"],
  [/\bcertificate has expired\b/i, "CERT_HAS_EXPIRED"],
  [/\bdoes not match certificate's altnames\b/i, "ERR_TLS_CERT_ALTNAME_INVALID"],
  [/\bwrong version number\b/i, "ERR_SSL_WRONG_VERSION_NUMBER"],
];

/** The TLS error in a cause chain: a known code, any ERR_SSL_/ERR_TLS_ code, or an EPROTO from OpenSSL. */
function tlsCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  for (let e: unknown = error; isRecord(e) && !seen.has(e); e = e.cause) {
    seen.add(e);
    const code = typeof e.code === "string" ? e.code : undefined;
    if (code && (code in CAUSES || /^(?:ERR_SSL_|ERR_TLS_|CERT_)/.test(code))) return code;
    if (code === "EPROTO" && typeof e.message === "string" && /SSL routines|TLS/i.test(e.message)) return code;
  }
  const text = isRecord(error) && typeof error.message === "string" ? error.message : "";
  if (!/^SSE error: /.test(text)) return undefined;
  return TEXT_CODES.find(([pattern]) => pattern.test(text))?.[1];
}

/** `tls_error` naming the URL, the cause and the remedy; `undefined` when the error is no TLS failure. */
export function fromTls(error: unknown, ctx: NormalizeContext): Classification | undefined {
  const code = tlsCode(error);
  if (!code) return undefined;
  const known = CAUSES[code];
  return tlsFailure(code, known?.what ?? "the TLS handshake failed", known?.remedy ?? REMEDY, ctx);
}

/** `tls_error` for a failure already named: its code (Node's, or another runtime's own), what it means, and who must act. */
export function tlsFailure(code: string, what: string, remedy: string, ctx: NormalizeContext): Classification {
  const where = ctx.url ? ` with ${ctx.url}` : "";
  return {
    reason: "tls_error",
    message: `The TLS connection${where} failed: ${what} (${code}). ${remedy}`,
    overrides: { data: { tlsCode: code } },
  };
}
