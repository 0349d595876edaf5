/**
 * The throttle shared on a real redis-server (Unix socket, temp dir): two toolkits in this
 * process, the two workers, each with its own Redis client, against one real streamable-HTTP
 * MCP server that admits 20 tool calls a sliding second (test/servers/limited.ts). Worker A
 * meets the server's 429s; worker B, which has sent nothing yet, then paces its first burst
 * at the fleet's rate instead of learning the limit from 429s of its own. With Redis down, the
 * throttle works per process. Counts the server's refusals; no assertion measures time.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent, type McpToolErrorJSON, type McpToolkitConfig, type ServerConfig } from "../../src/index.js";
import { throttleKey } from "../../src/fleet/keys.js";
import { eventually } from "../errors/helpers.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startLimitedServer, type LimitedHttpServer } from "../servers/limited.js";
import { RedisProcess, redisServerFound } from "./redis.js";

const skip = !redisServerFound && process.env.CI !== "true";
if (skip) console.warn("test/fleet: redis-server is not on PATH, so the shared throttle tests are skipped (apt-get install redis-server; CI installs it).");

const cleanups = closeAfterEach();
const CALLERS = 32;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const http = (server: LimitedHttpServer) => ({ transport: "http", url: server.url.href, throttle: true }) as ServerConfig;

/** A worker: its own Redis client when `socket` is given; `lookup` times out after 500 ms. */
async function worker(server: LimitedHttpServer, socket: string | undefined, keyPrefix: string, events: McpEvent[] = []): Promise<McpToolkit> {
  let client: Redis | undefined;
  if (socket) {
    client = new Redis({ path: socket, maxRetriesPerRequest: 1 });
    client.on("error", () => undefined);
  }
  const config: McpToolkitConfig = {
    servers: { limited: http(server) },
    tools: { lookup: { timeoutMs: 500 } },
    onEvent: (event) => events.push(event),
    ...(client ? { sharedState: { redis: client, keyPrefix } } : {}),
  };
  const toolkit = await McpToolkit.connect(config);
  cleanups.push(async () => {
    await toolkit.close();
    client?.disconnect();
  });
  return toolkit;
}

let ids = 0;
async function call(toolkit: McpToolkit, tool: string): Promise<ToolMessage> {
  return (await toolkit.getTool(tool)!.invoke({ type: "tool_call", id: `t${++ids}`, name: tool, args: { q: "x" } })) as ToolMessage;
}

/** CALLERS callers, each calling again as soon as its call settles, for `ms`. */
async function storm(toolkit: McpToolkit, ms: number, tool = "search"): Promise<ToolMessage[]> {
  const end = performance.now() + ms;
  const replies: ToolMessage[] = [];
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (performance.now() < end) replies.push(await call(toolkit, tool));
    }),
  );
  return replies;
}

/** Throttle refusals (the client's own, unsent, naming the wait): the server never saw these. */
const waitedTooLong = (replies: ToolMessage[]) =>
  replies.filter((r) => r.status === "error" && (r.artifact as McpToolErrorJSON).outcome === "not_sent" && /would have waited/.test(String(r.content)));

describe.skipIf(skip)("the throttle shared on Redis", () => {
  let redis: RedisProcess;
  let run = 0;

  beforeAll(async () => {
    redis = await new RedisProcess().start();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  /**
   * A storms the server for 1.5 s and meets its 429s; once its window has emptied, B (which has
   * sent nothing) fires CALLERS lookups at once. What the server refused of B's burst, and B's replies.
   */
  async function scenario(shared: boolean) {
    const prefix = `thr${++run}`;
    const server = await startLimitedServer({ perSecond: 20 });
    cleanups.push(() => server.close());
    const a = await worker(server, shared ? redis.socket : undefined, prefix);
    const b = await worker(server, shared ? redis.socket : undefined, prefix);
    await storm(a, 1500);
    expect(server.rejected).toBeGreaterThan(0);
    if (shared) {
      const probe = new Redis({ path: redis.socket });
      cleanups.push(async () => void probe.disconnect());
      await eventually(async () => expect(await probe.exists(throttleKey(prefix, "limited", http(server)))).toBe(1));
    }
    // The server's sliding second, and its Retry-After (whole seconds, 1 here), run out.
    await sleep(1200);
    const before = server.rejected;
    const replies = await Promise.all(Array.from({ length: CALLERS }, () => call(b, "lookup")));
    return { rejected: server.rejected - before, replies };
  }

  it("paces a worker that has met no 429 at the rate the fleet learnt: the server refuses none of its first burst", async () => {
    const alone = await scenario(false);
    const shared = await scenario(true);
    // Alone, B sends all 32 at once and the server refuses those past its 20.
    expect(alone.rejected).toBeGreaterThan(0);
    // Shared, B sends at about 20 a second: the ten or so whose turn comes within the 500 ms timeout
    // go, and the rest fail at once, unsent, naming the wait; the server refuses none.
    expect(shared.rejected).toBe(0);
    expect(waitedTooLong(shared.replies).length).toBeGreaterThan(CALLERS / 2);
    expect(shared.replies.filter((r) => r.status !== "error").length).toBeGreaterThan(0);
  }, 60_000);

  it("keeps throttling per process when Redis is down: calls never wait on it, and the outage is a shared_state event", async () => {
    const down = await new RedisProcess().start();
    cleanups.push(() => down.stop());
    const server = await startLimitedServer({ perSecond: 20 });
    cleanups.push(() => server.close());
    const events: McpEvent[] = [];
    const toolkit = await worker(server, down.socket, `thr${++run}`, events);
    await eventually(() => expect(events).toContainEqual({ type: "shared_state", status: "available" }));
    await down.kill();

    const storming = storm(toolkit, 3000);
    await sleep(1800);
    // Past the first contact and its Retry-After, 32 callers queue at about 14 to 20 calls a second.
    const late = await call(toolkit, "lookup");
    const replies = await storming;

    expect(waitedTooLong([late])).toHaveLength(1);
    // Every call succeeded or failed rate_limited unsent; the server admitted each success.
    for (const reply of replies) if (reply.status === "error") expect((reply.artifact as McpToolErrorJSON).reason).toBe("rate_limited");
    expect(replies.filter((r) => r.status !== "error").length).toBe(server.admitted);
    // The first contact (one request per caller in flight) and a rare probe; unthrottled, hundreds.
    expect(server.rejected).toBeLessThan(3 * CALLERS);
    expect(events.filter((e) => e.type === "shared_state").at(-1)).toMatchObject({ type: "shared_state", status: "unavailable" });
  }, 60_000);
});
