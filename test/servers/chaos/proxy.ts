/**
 * The reverse proxy in front of the chaos HTTP server: the real fault proxy of test/servers/proxy,
 * dealing each tools/call the proxy fault that plan.ts gives its key, on the attempts it fires on.
 * It counts attempts itself, since a fault before forwarding never reaches the server's ledger.
 */
import { startFaultProxy, type FaultProxy, type ProxyFault } from "../proxy/faultProxy.js";
import { CLOUDFLARE, cloudflarePage, cloudflareTitle, ENVOY_TERMINATION, GATEWAY_JSON, LOGIN_PAGE, LOGIN_PAGE_TITLE, nginxPage } from "../proxy/pages.js";
import { DEFAULT_MIX, faultFor, FAULT_INFO, firesOn, type Fault, type FaultMix } from "./plan.js";

/** The wait a Retry-After asks for: in seconds ("1"), or as an HTTP date about this far ahead. */
export const RETRY_AFTER_MS = 1_000;

const HTML = "text/html; charset=UTF-8";

const cloudflare = (when: "before" | "after", status: keyof typeof CLOUDFLARE): ProxyFault => ({
  kind: "status",
  when,
  status,
  body: cloudflarePage(status, CLOUDFLARE[status][0], CLOUDFLARE[status][1]),
  contentType: HTML,
});

/** What the proxy does for a fault of its own; undefined for every other fault. */
export function proxyFault(fault: Fault): ProxyFault | undefined {
  switch (fault) {
    case "proxy_502_before":
    case "proxy_502_after":
      return { kind: "status", when: fault.endsWith("before") ? "before" : "after", status: 502, body: nginxPage(502), contentType: "text/html" };
    case "proxy_503_before":
      return { kind: "status", when: "before", status: 503, body: "Service Unavailable" };
    case "proxy_503_after":
      return { kind: "status", when: "after", status: 503, body: ENVOY_TERMINATION };
    case "proxy_504_before":
    case "proxy_504_after":
      return { kind: "status", when: fault.endsWith("before") ? "before" : "after", status: 504, body: nginxPage(504), contentType: "text/html" };
    case "cf_521_before":
      return cloudflare("before", 521);
    case "cf_522_before":
      return cloudflare("before", 522);
    case "cf_520_after":
      return cloudflare("after", 520);
    case "cf_524_after":
      return cloudflare("after", 524);
    case "retry_after_seconds":
      return { kind: "status", when: "before", status: 503, body: "Service Unavailable", headers: { "retry-after": String(RETRY_AFTER_MS / 1000) } };
    case "retry_after_date":
      // Made when the request arrives; an HTTP date has whole seconds, so it asks for at most this.
      return { kind: "status", when: "before", status: 429, body: "Too Many Requests", headers: { "retry-after": new Date(Date.now() + RETRY_AFTER_MS).toUTCString() } };
    case "html_200":
      return { kind: "ok_body", body: LOGIN_PAGE, contentType: "text/html; charset=utf-8" };
    case "json_200":
      return { kind: "ok_body", body: GATEWAY_JSON, contentType: "application/json" };
    case "stall":
      return { kind: "stall" };
    case "reset_mid_body":
      return { kind: "reset_mid_body" };
    case "end_mid_body":
      return { kind: "end_mid_body" };
    default:
      return undefined;
  }
}

/** The title of the page a fault serves, which the model must read instead of the page's markup. */
export const PAGE_TITLES: Partial<Record<Fault, string>> = {
  proxy_502_before: "502 Bad Gateway",
  proxy_502_after: "502 Bad Gateway",
  proxy_504_before: "504 Gateway Time-out",
  proxy_504_after: "504 Gateway Time-out",
  cf_520_after: cloudflareTitle(520, CLOUDFLARE[520][0]),
  cf_524_after: cloudflareTitle(524, CLOUDFLARE[524][0]),
  html_200: LOGIN_PAGE_TITLE,
};

export interface ChaosProxyOptions {
  seed: number;
  /** @default DEFAULT_MIX */
  mix?: FaultMix;
  /** @default 1 */
  transientAttempts?: number;
}

export async function startChaosProxy(upstream: URL, options: ChaosProxyOptions): Promise<FaultProxy> {
  const attempts = new Map<string, number>();
  const mix = options.mix ?? DEFAULT_MIX;
  return startFaultProxy(upstream, {
    decide: ({ key }) => {
      if (key === undefined) return undefined;
      const attempt = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, attempt);
      const fault = faultFor(options.seed, key, "http", mix);
      if (FAULT_INFO[fault].by !== "proxy" || !firesOn(fault, attempt, options.transientAttempts ?? 1)) return undefined;
      return proxyFault(fault);
    },
  });
}
