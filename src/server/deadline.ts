/**
 * The server half of a call's deadline: a tool callback wrapped so that it learns, through the
 * signal it already heeds, when its caller stops waiting. The client states in each `tools/call`
 * request's `_meta["langchain-mcp-errors/deadline"]` the milliseconds it will still wait, counted
 * when it sent the request; MCP has no deadline of its own yet (SEP-1539).
 * Works with the v1 (`@modelcontextprotocol/sdk`) and v2 (`@modelcontextprotocol/server`) McpServer.
 */
import { DEADLINE_META, deadlineOf } from "../errors/deadline.js";

/** The request's `_meta` and signal, as v1 (`extra`) and v2 (`ctx.mcpReq`) hand them to a callback. */
interface Extra {
  _meta?: Record<string, unknown>;
  signal?: AbortSignal;
  mcpReq?: { _meta?: Record<string, unknown>; signal?: AbortSignal };
}

/**
 * A wrapped callback: typed as the callback it wraps, so that an SDK's `registerTool` types the
 * callback's parameters as it types its own, and, called directly, as returning a promise.
 */
export type Deadlined<F extends (...params: never[]) => unknown> = ((...params: Parameters<F>) => Promise<Awaited<ReturnType<F>>>) & F;

/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days); a longer one would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Wraps a tool callback so that it is told when its caller's time is up. Takes both callback
 * shapes the SDKs call: `(args, extra) => result` for a tool with an input schema, and
 * `(extra) => result` for one without (v1 `extra`, v2 `ctx`).
 *
 * A call whose request carries `_meta["langchain-mcp-errors/deadline"]` (a number of milliseconds,
 * 0 or more) gets, in place of the request's signal (v1 `extra.signal`, v2 `ctx.mcpReq.signal`),
 * one that aborts when that many milliseconds have passed since the wrapper was called (the
 * request's arrival, after the SDK checked its arguments) or when the request's own signal aborts
 * (a cancellation, with that signal's reason). Every other field of `extra` is the SDK's; the SDK's
 * own object is left as it was. A call without the entry (or with one that is not such a number)
 * runs exactly as before: the same `extra`, no timer.
 *
 * When the deadline passes first, the signal aborts with a `DOMException` named `TimeoutError` (as
 * `AbortSignal.timeout()` does) and the wrapper rejects with it at once, without waiting for the
 * callback. That is the nearest a tool callback comes to what the SDKs do with a cancelled request:
 * they abort its signal, and when its handler settles they send nothing at all (`Protocol._onrequest`
 * in both lines). A tool callback cannot silence the answer: both McpServers turn what it throws
 * into an `isError` result whose text is the error's message, sent to a caller that has stopped
 * waiting (unless the caller's own cancellation arrived first: then the SDK sends nothing, as for
 * any cancelled request). Whatever the callback settles with later is dropped, as the SDK drops a
 * cancelled handler's. A deadline of 0 means the caller has no time left: the callback is not run.
 *
 * The timer is cleared, and the listener on the request's signal removed, as soon as the callback
 * settles, the deadline passes or the request is cancelled, whichever comes first.
 *
 * With `withIdempotency`, wrap it inside this one (`withDeadline(withIdempotency(handler))`): it
 * then sees the combined signal and still waits for the callback, so it keeps the callback's true
 * outcome, and frees the key when the callback gives up on its signal.
 */
export function withDeadline<F extends (...params: never[]) => unknown>(handler: F): Deadlined<F> {
  const run = handler as unknown as (...params: unknown[]) => unknown;
  const wrapped = async (...params: unknown[]): Promise<unknown> => {
    // The SDKs pass `extra` second to a tool with an input schema and alone to one without.
    const at = params.length >= 2 ? 1 : 0;
    const extra = params[at] as Extra | undefined;
    const ms = deadlineOf(extra?.mcpReq?._meta ?? extra?._meta);
    if (ms === undefined || extra === undefined) return run(...params);
    if (ms === 0) throw deadlinePassed(ms);
    const request = extra.mcpReq?.signal ?? extra.signal;
    const controller = new AbortController();
    const given = [...params];
    given[at] = withSignal(extra, controller.signal);

    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (): void => {
      clearTimeout(timer);
      request?.removeEventListener("abort", cancel);
    };
    const cancel = (): void => {
      done();
      controller.abort(request?.reason);
    };
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        done();
        const reason = deadlinePassed(ms);
        controller.abort(reason);
        reject(reason);
      }, Math.min(ms, MAX_TIMER_MS));
    });
    if (request?.aborted) cancel();
    else request?.addEventListener("abort", cancel, { once: true });
    // A callback that throws at once rejects `running`; one that settles after the deadline is
    // dropped (`Promise.race` has subscribed to it, so a late rejection is not unhandled).
    const running = (async () => run(...given))();
    try {
      return await Promise.race([running, expired]);
    } finally {
      done();
    }
  };
  return wrapped as unknown as Deadlined<F>;
}

/** The same `extra` with `signal` (v1) or `mcpReq.signal` (v2) replaced. */
function withSignal(extra: Extra, signal: AbortSignal): Extra {
  return extra.mcpReq ? { ...extra, mcpReq: { ...extra.mcpReq, signal } } : { ...extra, signal };
}

function deadlinePassed(ms: number): DOMException {
  return new DOMException(`The caller's deadline passed: it waited ${ms} ms for this call (_meta "${DEADLINE_META}") and has stopped waiting.`, "TimeoutError");
}
