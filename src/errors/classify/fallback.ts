import type { Classification, NormalizeContext } from "./context.js";
import { ENDPOINT_HINTS } from "./http.js";

/**
 * A streamable HTTP connect that failed as a server of the older SSE transport fails (a 4xx), and
 * the SSE transport tried next failed too. Both failures are the news: the first may say the path
 * is wrong, the second that the server is no SSE server either.
 */
export class TransportFallbackError extends Error {
  override readonly name = "TransportFallbackError";
  constructor(
    /** The streamable HTTP transport's failure: the transport the configuration asked for. */
    readonly primary: unknown,
    /** The SSE transport's failure, tried after it. */
    readonly fallback: unknown,
  ) {
    super(`${messageOf(primary)}; the SSE fallback failed too: ${messageOf(fallback)}`, { cause: primary });
  }
}

/**
 * Classified as the streamable failure (its reason and status), its message followed by the SSE
 * one's; a hint both end with is said once.
 */
export function fromFallback(error: TransportFallbackError, ctx: NormalizeContext, classify: (error: unknown, ctx: NormalizeContext) => Classification): Classification {
  const first = classify(error.primary, ctx);
  // The same URL: said once, in the first.
  const { url: _url, response: _response, ...rest } = ctx;
  const second = classify(error.fallback, rest);
  // The first failure's hint goes last, after both, and once.
  const hint = Object.values(ENDPOINT_HINTS).find((h) => first.message.endsWith(h));
  const without = (message: string) => (hint && message.endsWith(hint) ? message.slice(0, -hint.length).trimEnd() : message);
  return { ...first, message: `${without(first.message)} The SSE fallback failed too: ${without(second.message)}${hint ? ` ${hint}` : ""}` };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
