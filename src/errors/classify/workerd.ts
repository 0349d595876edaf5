/**
 * workerd (Cloudflare Workers, Miniflare) says less than the other runtimes, so it gets the
 * verdicts that assume the least:
 * - A refused connect, a reset before the answer and a reset mid-body are all one
 *   `Error("Network connection lost.")` (`retryable: true`, and `remote: true` for the first
 *   two). A refused connect would be `not_sent`, but nothing tells it apart from a connection
 *   lost after the request was written: `connection_reset`, outcome `unknown`. workerd's
 *   `retryable` is its guess, and a write is never repeated on a guess.
 * - A DNS failure and an untrusted TLS certificate are both an opaque
 *   `Error("internal error; reference = …")`: the cause is only in workerd's log, under that
 *   reference. Neither the outcome nor whether a retry could help is known, so it is `unknown`
 *   (of kind `transport`), not transient, outcome `unknown`.
 * Neither error carries a code; their texts are workerd's fixed ones.
 */
import type { Classification, NormalizeContext } from "./context.js";
import { lostAfterWrite } from "./system.js";
import { isRecord } from "./util.js";

const CONNECTION_LOST = "Network connection lost.";
const INTERNAL = /^internal error; reference = ([0-9a-z]+)$/;

export function fromWorkerd(error: unknown, ctx: NormalizeContext): Classification | undefined {
  const seen = new Set<unknown>();
  for (let e: unknown = error; isRecord(e) && !seen.has(e); e = e.cause) {
    seen.add(e);
    if (e.code !== undefined || typeof e.message !== "string") continue;
    if (e.message === CONNECTION_LOST) {
      return lostAfterWrite(
        `The connection to the server${ctx.url ? ` at ${ctx.url}` : ""} was lost (workerd: "${CONNECTION_LOST}"). workerd reports a refused connect the same way, so the server may or may not have received the request.`,
        ctx,
      );
    }
    const internal = INTERNAL.exec(e.message);
    if (internal) {
      return {
        reason: "unknown",
        message:
          `workerd's fetch${ctx.url ? ` of ${ctx.url}` : ""} failed with an internal error it does not describe (reference = ${internal[1]}): a failed DNS lookup and an untrusted TLS certificate both look like this. ` +
          "workerd's log names the cause under that reference.",
        overrides: { kind: "transport", outcome: "unknown", data: { workerdReference: internal[1] } },
      };
    }
  }
  return undefined;
}
