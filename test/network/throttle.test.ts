/**
 * The throttle end to end: 32 parallel callers against a real streamable-HTTP MCP server on
 * 127.0.0.1 that admits 20 tool calls a sliding second and answers 429 + Retry-After past it
 * (test/servers/limited.ts). With `throttle: true` the server, past the first contact, refuses
 * far fewer requests than without, every call succeeds or fails `rate_limited` unsent, a call
 * whose timeout is shorter than its turn fails at once, naming the wait, and close() ends every
 * wait for a turn. Each waits for the state it needs (the server's counts, the throttle's
 * queue), never for a fixed time: a loaded machine takes seconds longer to get there.
 */
import type { ToolMessage } from "@langchain/core/messages";
import type { Throttle } from "../../src/policy/Throttle.js";
import { describe, expect, it, vi } from "vitest";
import { McpToolkit, type McpToolErrorJSON, type McpToolkitConfig } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startLimitedServer, type LimitedHttpServer } from "../servers/limited.js";
import { stopwatch } from "../timing.js";

const cleanups = closeAfterEach();
const CALLERS = 32;
const PER_SECOND = 20;
/**
 * How far a storm runs past the server's first 429, in calls the server took (its count, the
 * same on any machine): SETTLE for the first contact to end, then PAST_LIMIT whose 429s count.
 */
const SETTLE = 2 * PER_SECOND;
const PAST_LIMIT = 4 * PER_SECOND;
/**
 * How long the first contact, its Retry-After and the callers' return into the queue may take:
 * about 1.5 s on a quiet machine, longer on a loaded one; the wait ends as soon as they queue.
 */
const QUEUE_WAIT_MS = 20_000;

async function limitedToolkit(server: LimitedHttpServer, extra: Partial<McpToolkitConfig["servers"][string]> = {}, rest: Partial<McpToolkitConfig> = {}): Promise<McpToolkit> {
  const toolkit = await McpToolkit.connect({ servers: { limited: { transport: "http", url: server.url.href, ...extra } as McpToolkitConfig["servers"][string] }, ...rest });
  cleanups.push(() => toolkit.close());
  return toolkit;
}

/** The server's throttle, read from the toolkit's guards: the one place this test looks inside, to know how many calls wait. */
function throttleOf(toolkit: McpToolkit): Throttle {
  return (toolkit as unknown as { guards: Map<string, { throttle?: Throttle }> }).guards.get("limited")!.throttle!;
}

let ids = 0;
async function call(toolkit: McpToolkit, tool: string): Promise<ToolMessage> {
  return (await toolkit.getTool(tool)!.invoke({ type: "tool_call", id: `t${++ids}`, name: tool, args: { q: "x" } })) as ToolMessage;
}

/** What a storm's calls came back with, and the server's 429s in its last PAST_LIMIT calls. */
interface Storm {
  replies: ToolMessage[];
  late429s: number;
}

/**
 * CALLERS callers, each calling again as soon as its call settles, until the server has taken
 * SETTLE + PAST_LIMIT calls since it first refused one. Counted in calls, not seconds: a 5 s
 * storm on a loaded machine spent most of it warming up and met the limit once where a quiet one
 * meets it four times (the plain storm's 429s fell from ~130 to 31). Its first contact, the calls
 * sent before a 429 came back, throttle or not, is left out of `late429s`: on a loaded machine
 * it is no burst (the first 429 came after 20 to 40 calls) and its answers trickle in for a second.
 */
async function storm(toolkit: McpToolkit, server: LimitedHttpServer): Promise<Storm> {
  let admittedAtLimit: number | undefined;
  let settled: number | undefined;
  const more = (): boolean => {
    if (admittedAtLimit === undefined && server.rejected > 0) admittedAtLimit = server.admitted;
    if (admittedAtLimit === undefined) return true;
    const past = server.admitted - admittedAtLimit;
    if (settled === undefined && past >= SETTLE) settled = server.rejected;
    return past < SETTLE + PAST_LIMIT;
  };
  const replies: ToolMessage[] = [];
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (more()) replies.push(await call(toolkit, "search"));
    }),
  );
  return { replies, late429s: server.rejected - (settled ?? server.rejected) };
}

/** Resolves once at least half the callers wait in the throttle's queue: past the first contact and its Retry-After. */
async function queued(toolkit: McpToolkit): Promise<void> {
  await vi.waitFor(() => expect(throttleOf(toolkit).waiting).toBeGreaterThanOrEqual(CALLERS / 2), { timeout: QUEUE_WAIT_MS });
}

describe("the throttle against a server limited to 20 calls a second", () => {
  it("keeps the server's 429s past the first contact well below the count without it; every call succeeds or fails rate_limited, unsent", async () => {
    const plain = await startLimitedServer({ perSecond: PER_SECOND });
    const throttled = await startLimitedServer({ perSecond: PER_SECOND });
    cleanups.push(() => plain.close(), () => throttled.close());
    // One after the other: side by side, a loaded machine cut the plain storm's 429s to 64 against the throttled one's fixed 33 (its first contact).
    const without = await storm(await limitedToolkit(plain), plain);
    const { replies, late429s } = await storm(await limitedToolkit(throttled, { throttle: true }), throttled);

    // Without: each burst after a Retry-After meets a full window, 12 to 32 429s each (fewer the
    // slower the client sends: its Retry-After gate holds the calls sent after the first 429 came
    // back). With: a rare probe past the limit, more when load bunches the calls' arrivals.
    // Measured in those calls at a load of 10 on two cores: 2-3 with, 25-82 without.
    const counts = `429s in the last ${PAST_LIMIT} calls: ${late429s} throttled, ${without.late429s} plain; in all ${throttled.rejected} and ${plain.rejected}`;
    // The plain storm pressed the limit throughout: at least one 429 for each window's worth of calls.
    expect(without.late429s, counts).toBeGreaterThanOrEqual(PAST_LIMIT / PER_SECOND);
    expect(late429s, counts).toBeLessThan(without.late429s * 0.5);
    expect(throttled.rejected, counts).toBeLessThan(plain.rejected);
    for (const reply of replies) {
      if (reply.status !== "error") continue;
      const error = reply.artifact as McpToolErrorJSON;
      expect([error.reason, error.outcome]).toEqual(["rate_limited", "not_sent"]);
    }
    expect(replies.filter((r) => r.status !== "error").length).toBe(throttled.admitted);
  }, 90_000);

  it("fails a call whose timeout is shorter than its turn at once, naming the wait", async () => {
    const server = await startLimitedServer({ perSecond: PER_SECOND });
    cleanups.push(() => server.close());
    const toolkit = await limitedToolkit(server, { throttle: true }, { tools: { lookup: { timeoutMs: 200 } } });
    let done = false;
    const callers = Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (!done) await call(toolkit, "search");
      }),
    );
    // 16 or more callers queue at about 14 to 20 calls a second (a little more as the rate grows
    // back): the next call's turn is most of a second away, past its 200 ms timeout.
    await queued(toolkit);
    const clock = stopwatch();
    const reply = await call(toolkit, "lookup");
    const tookMs = clock.elapsed();
    done = true;
    await callers;
    expect(reply.status).toBe("error");
    const error = reply.artifact as McpToolErrorJSON;
    expect([error.reason, error.outcome, error.attempts]).toEqual(["rate_limited", "not_sent", 1]);
    expect(String(reply.content)).toMatch(/would have waited \d+\.\d s for its turn, longer than its 200 ms timeout/);
    // At once: the turn was most of a second away. Generous for a loaded machine.
    clock.within(500, "a call whose turn is most of a second away, with a 200 ms timeout", tookMs);
  }, 30_000);

  it("ends every wait for a turn at once on close(): the waiting calls settle as closed, unsent", async () => {
    const server = await startLimitedServer({ perSecond: PER_SECOND });
    cleanups.push(() => server.close());
    const toolkit = await limitedToolkit(server, { throttle: true });
    const replies: ToolMessage[] = [];
    let closing = false;
    const callers = Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (!closing) replies.push(await call(toolkit, "search"));
      }),
    );
    // Waited for, not slept for: after a fixed 1.8 s a loaded machine's callers were still in the
    // first contact's Retry-After, outside the queue, and close() found none waiting.
    await queued(toolkit);
    const before = replies.length;
    closing = true;
    // How many wait for their turn now (a late refusal's pause fails some at once, and they ask again).
    const waiting = throttleOf(toolkit).waiting;
    const clock = stopwatch();
    // The waits end when close() begins, not when it has let go of the connection (up to 1 s of its
    // own), nor as each turn comes: the queue is empty before anything else runs. Checked as an
    // order, which load cannot stretch; released a turn at a time (50 ms each), 16 calls would
    // still settle closed and unsent, and within the bound below.
    const closed_ = toolkit.close();
    expect(throttleOf(toolkit).waiting, "calls still waiting for their turn once close() has begun").toBe(0);
    await callers;
    clock.within(1000, "close() ending the waits for a turn");
    await closed_;
    const closed = replies.slice(before).filter((r) => r.status === "error" && (r.artifact as McpToolErrorJSON).reason === "closed");
    // Every call still waiting for its turn when close() came settles closed and unsent. The one or
    // two whose request was already sent settle closed with the outcome unknown, as any call in flight does.
    const unsent = closed.filter((r) => (r.artifact as McpToolErrorJSON).outcome === "not_sent");
    expect(waiting).toBeGreaterThan(0);
    expect(unsent.length).toBeGreaterThanOrEqual(waiting);
    expect(closed.length - unsent.length).toBeLessThanOrEqual(4);
  }, 30_000);
});
