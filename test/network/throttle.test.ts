/**
 * The throttle end to end: 32 parallel callers against a real streamable-HTTP MCP server on
 * 127.0.0.1 that admits 20 tool calls a sliding second and answers 429 + Retry-After past it
 * (test/servers/limited.ts). With `throttle: true` the server refuses far fewer requests than
 * without, every call succeeds or fails `rate_limited` unsent, and a call whose timeout is
 * shorter than its turn fails at once, naming the wait.
 */
import type { ToolMessage } from "@langchain/core/messages";
import type { Throttle } from "../../src/policy/Throttle.js";
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpToolErrorJSON, type McpToolkitConfig } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startLimitedServer, type LimitedHttpServer } from "../servers/limited.js";
import { stopwatch } from "../timing.js";

const cleanups = closeAfterEach();
const CALLERS = 32;
const RUN_MS = 5000;

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

/** CALLERS callers, each calling again as soon as its call settles, for RUN_MS; what each call came back with. */
async function storm(toolkit: McpToolkit): Promise<ToolMessage[]> {
  const end = performance.now() + RUN_MS;
  const replies: ToolMessage[] = [];
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (performance.now() < end) replies.push(await call(toolkit, "search"));
    }),
  );
  return replies;
}

describe("the throttle against a server limited to 20 calls a second", () => {
  it("keeps the server's 429s well below the count without it; every call succeeds or fails rate_limited, unsent", async () => {
    const plain = await startLimitedServer({ perSecond: 20 });
    const throttled = await startLimitedServer({ perSecond: 20 });
    cleanups.push(() => plain.close(), () => throttled.close());
    // One after the other: side by side, a loaded machine cut the plain storm's 429s to 64 against the throttled one's fixed 33 (its first contact).
    await storm(await limitedToolkit(plain));
    const replies = await storm(await limitedToolkit(throttled, { throttle: true }));

    // Without: each burst after a Retry-After meets a full window. With: the first contact (one
    // request per caller in flight) and a rare probe past the limit. Measured ~0.2; 0.5 leaves room.
    expect(plain.rejected).toBeGreaterThan(CALLERS);
    expect(throttled.rejected, `429s: ${throttled.rejected} throttled, ${plain.rejected} plain`).toBeLessThan(plain.rejected * 0.5);
    for (const reply of replies) {
      if (reply.status !== "error") continue;
      const error = reply.artifact as McpToolErrorJSON;
      expect([error.reason, error.outcome]).toEqual(["rate_limited", "not_sent"]);
    }
    expect(replies.filter((r) => r.status !== "error").length).toBe(throttled.admitted);
  }, 30_000);

  it("fails a call whose timeout is shorter than its turn at once, naming the wait", async () => {
    const server = await startLimitedServer({ perSecond: 20 });
    cleanups.push(() => server.close());
    const toolkit = await limitedToolkit(server, { throttle: true }, { tools: { lookup: { timeoutMs: 200 } } });
    const end = performance.now() + 3000;
    const callers = Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (performance.now() < end) await call(toolkit, "search");
      }),
    );
    // Past the first contact and its Retry-After, 32 callers queue at about 14 to 20 calls a second.
    await new Promise((resolve) => setTimeout(resolve, 1800));
    const clock = stopwatch();
    const reply = await call(toolkit, "lookup");
    const tookMs = clock.elapsed();
    await callers;
    expect(reply.status).toBe("error");
    const error = reply.artifact as McpToolErrorJSON;
    expect([error.reason, error.outcome, error.attempts]).toEqual(["rate_limited", "not_sent", 1]);
    expect(String(reply.content)).toMatch(/would have waited \d+\.\d s for its turn, longer than its 200 ms timeout/);
    // At once: the turn was over a second away. Generous for a loaded machine.
    clock.within(500, "a call whose turn is over a second away, with a 200 ms timeout", tookMs);
  }, 30_000);

  it("ends every wait for a turn at once on close(): the waiting calls settle as closed, unsent", async () => {
    const server = await startLimitedServer({ perSecond: 20 });
    cleanups.push(() => server.close());
    const toolkit = await limitedToolkit(server, { throttle: true });
    const replies: ToolMessage[] = [];
    let closing = false;
    const callers = Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (!closing) replies.push(await call(toolkit, "search"));
      }),
    );
    // Past the first contact and its Retry-After: about 30 calls wait for their turn.
    await new Promise((resolve) => setTimeout(resolve, 1800));
    const before = replies.length;
    closing = true;
    // How many wait for their turn now (a late refusal's pause fails some at once, and they ask again).
    const waiting = throttleOf(toolkit).waiting;
    const clock = stopwatch();
    // The waits end when close() begins, not when it has let go of the connection (up to 1 s of its own).
    const closed_ = toolkit.close();
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
