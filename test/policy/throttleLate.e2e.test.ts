/**
 * A late refusal and a call waiting in the throttle: a real v1 SDK server over streamable HTTP on
 * 127.0.0.1, a toolkit with the throttle on. The race, made with real requests in a fixed order:
 * 1. `hold` is sent while the throttle is off, and the server keeps it (its answer is held back);
 * 2. `search` is answered 429: the throttle cuts its rate (an epoch later than `hold`'s send);
 * 3. `echo` takes the one token the cut leaves, and `lookup` (timeout 3 s) queues for the next,
 *    2.5 s away at the throttle's floor rate (0.4 calls a second, its curve kept flat for the
 *    test's few seconds, so the late answer has that long to arrive before `lookup`'s turn);
 * 4. `hold` is answered now: a rate limit with `retryAfterMs: 12000`, a late answer to a request
 *    sent before the last cut, whose pause puts `lookup`'s turn 12 s away.
 * `lookup` then fails at once, unsent, and the server never sees it. Before, it stayed queued for
 * the 12 s, settled about 12 s after it was made, and was sent after its caller gave up.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpToolErrorJSON } from "../../src/index.js";
import type { Throttle } from "../../src/policy/Throttle.js";
import { eventually } from "../errors/helpers.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture, type HttpFixture } from "../servers/http.js";
import { stopwatch } from "../timing.js";

const cleanups = closeAfterEach();
const LATE_WAIT_MS = 12_000;
const LOOKUP_TIMEOUT_MS = 3_000;

/** The server: `hold` answers when released, with a rate limit; the other tools answer at once. What arrived, in order. */
async function holdingServer(): Promise<{ http: HttpFixture; seen: string[]; release: () => void; holding: Promise<void> }> {
  const seen: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const holding = new Promise<void>((resolve) => (arrived = resolve));
  const http = await startHttpFixture({
    build: () => {
      const server = new Server({ name: "api", version: "1.0.0" }, { capabilities: { tools: {} } });
      const tool = (name: string) => ({ name, description: `The ${name} tool.`, inputSchema: { type: "object" as const, properties: {} }, annotations: { readOnlyHint: true } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: ["hold", "search", "echo", "lookup"].map(tool) }));
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        const name = request.params.name;
        seen.push(name);
        if (name === "hold") {
          arrived();
          await released;
          throw new McpError(-32023, "Rate limit exceeded", { retryAfterMs: LATE_WAIT_MS });
        }
        return { content: [{ type: "text", text: `${name} ok` }] };
      });
      return server;
    },
  });
  cleanups.push(async () => {
    release();
    await http.close();
  });
  return { http, seen, release, holding };
}

let ids = 0;
async function call(toolkit: McpToolkit, tool: string): Promise<ToolMessage> {
  return (await toolkit.getTool(tool)!.invoke({ type: "tool_call", id: `l${++ids}`, name: tool, args: {} })) as ToolMessage;
}

/** The server's throttle, read from the toolkit's guards: the one place this test looks inside, to know a call is queued. */
function throttleOf(toolkit: McpToolkit): Throttle {
  return (toolkit as unknown as { guards: Map<string, { throttle?: Throttle }> }).guards.get("api")!.throttle!;
}

const failure = (reply: ToolMessage) => (reply.status === "error" ? (reply.artifact as McpToolErrorJSON) : undefined);

describe("a call queued in the throttle when a late refusal (sent before the last cut) asks for 12 s", () => {
  it("fails at once, unsent, instead of waiting out the 12 s pause: the server never sees it", async () => {
    const { http, seen, release, holding } = await holdingServer();
    const toolkit = await McpToolkit.connect({
      servers: { api: { transport: "http", url: http.url.href, throttle: { minRate: 0.4, scale: 0.01 } } },
      retry: { retries: 0 },
      breaker: { enabled: false },
      tools: { lookup: { timeoutMs: LOOKUP_TIMEOUT_MS } },
    });
    cleanups.push(() => toolkit.close());
    const throttle = throttleOf(toolkit);

    // 1. Sent while the throttle is off (epoch 0), held by the server.
    const held = call(toolkit, "hold");
    await holding;
    // 2. The first 429: the throttle cuts (epoch 1). No Retry-After, so nothing else holds the server.
    http.failNext(429);
    const refused = await call(toolkit, "search");
    expect(failure(refused)).toMatchObject({ reason: "rate_limited", status: 429 });
    expect(throttle.rate, "the throttle is on after the 429").toBeDefined();
    // 3. The cut's one token, then a call that waits its turn (2.5 s at the floor rate, within its 3 s).
    expect(await call(toolkit, "echo")).toMatchObject({ status: "success" });
    const clock = stopwatch();
    const queued = call(toolkit, "lookup");
    await eventually(() => expect(throttle.waiting, "lookup waiting in the throttle").toBe(1));
    expect(seen).toEqual(["hold", "echo"]);
    // 4. The late answer to the request sent before the cut: a rate limit asking for 12 s.
    release();
    const late = await held;
    expect(failure(late)).toMatchObject({ reason: "rate_limited", retryAfterMs: LATE_WAIT_MS });

    const reply = await queued;
    clock.within(LOOKUP_TIMEOUT_MS + 1_000, "the queued call (3 s timeout) after a late 12 s pause");
    const error = failure(reply);
    expect(error?.outcome).toBe("not_sent");
    expect(["rate_limited", "request_timeout"]).toContain(error?.reason);
    expect(seen, "what the server received").not.toContain("lookup");
    expect(throttle.waiting).toBe(0);
  });
});
