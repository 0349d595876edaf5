import type { Classification, NormalizeContext } from "./context.js";
import { isRecord } from "./util.js";

// Refusals of fetch itself, before any socket is opened: undici enforces the WHATWG Fetch
// standard's "bad ports" (6000 for X11, 10080 for Amanda, SMTP's 25, …) and fails with a bare
// `Error("bad port")` under "fetch failed". Nothing left this process, and no retry helps.

/** The eventsource package flattens the same failure into its text: "SSE error: TypeError: fetch failed: bad port". */
const BAD_PORT_IN_TEXT = /\bfetch failed: bad port\b/;

function isBadPort(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e: unknown = error; isRecord(e) && !seen.has(e); e = e.cause) {
    seen.add(e);
    if (e.message === "bad port" && e.code === undefined) return true;
    if (typeof e.message === "string" && BAD_PORT_IN_TEXT.test(e.message)) return true;
  }
  return false;
}

/** The port a URL names, its scheme's default when it names none. */
function portOf(url: string | undefined): number | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    if (parsed.port) return Number(parsed.port);
    return parsed.protocol === "https:" ? 443 : parsed.protocol === "http:" ? 80 : undefined;
  } catch {
    return undefined;
  }
}

/** fetch's TypeError for `http://user:password@host/…`: the Fetch standard forbids credentials in a request's URL. */
const CREDENTIALS_IN_URL = /\bRequest cannot be constructed from a URL that includes credentials\b/;

function hasUrlCredentials(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e: unknown = error; isRecord(e) && !seen.has(e); e = e.cause) {
    seen.add(e);
    if (typeof e.message === "string" && CREDENTIALS_IN_URL.test(e.message)) return true;
  }
  return false;
}

/** `http_error` naming the blocked port, or the credentials in the URL, and the way out; `undefined` for any other failure. */
export function fromFetchRefusal(error: unknown, ctx: NormalizeContext): Classification | undefined {
  if (hasUrlCredentials(error)) {
    return {
      reason: "http_error",
      message:
        `The server's URL${ctx.url ? ` (${ctx.url})` : ""} holds credentials (user:password@host), which fetch refuses to send: nothing was sent. ` +
        "Take them out of the URL and send them in `headers` instead (for Basic auth, an `Authorization` header with user:password in base64).",
      overrides: { kind: "transport", outcome: "not_sent", data: { urlUserInfo: true } },
    };
  }
  if (!isBadPort(error)) return undefined;
  return blockedPort(portOf(ctx.url), ctx);
}

/** `http_error` naming a port that fetch refused to use; Deno's own refusal says the same. */
export function blockedPort(port: number | undefined, ctx: NormalizeContext): Classification {
  const which = port !== undefined ? `port ${port}` : "this port";
  return {
    reason: "http_error",
    message:
      `fetch refused to connect to ${which}${ctx.url ? ` (${ctx.url})` : ""}: it is on the Fetch standard's list of "bad ports", which Node's and Deno's fetch refuse. ` +
      "Serve the MCP endpoint on another port, or give the server a `fetch` option that does not block it.",
    overrides: { kind: "transport", data: { blockedPort: port } },
  };
}
