/**
 * A wait the server states is believed up to the retry policy's `maxRetryAfterMs`: a real SDK
 * server over streamable HTTP on 127.0.0.1 whose `book` tool answers once with a JSON-RPC
 * rate-limit (-32023) whose `data.retryAfterMs` is a time of day (`Date.now() + 2000`, about 57
 * years as a wait), as a server that wrote a timestamp where a delay belongs does. The call that
 * got it fails at once, saying the server asked for longer; the server is held back for
 * `maxRetryAfterMs` (1 s) at most, so another of its tools called 2.5 s later goes through, in
 * this process and, with `sharedState` on a real redis-server, in a second worker. Before, the
 * bogus wait refused every tool of the server for the 57 years, fleet-wide.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpToolkit, type McpToolErrorJSON, type McpToolkitConfig } from "../../src/index.js";
import { serverKeys } from "../../src/fleet/keys.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture, type HttpFixture } from "../servers/http.js";
import { RedisProcess, redisServerFound } from "../fleet/redis.js";

const skipFleet = !redisServerFound && process.env.CI !== "true";
if (skipFleet) console.warn("test/policy/statedWait: redis-server is not on PATH, so the fleet case is skipped (apt-get install redis-server; CI installs it).");

const cleanups = closeAfterEach();
const MAX_RETRY_AFTER_MS = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The tools the server ran, in order: a call the client refused never reaches this list. */
type Seen = string[];

/** `book` answers its first call with -32023 and a timestamp for a wait, then books; `status` always answers. */
async function rateLimitedServer(): Promise<{ http: HttpFixture; seen: Seen }> {
  const seen: Seen = [];
  let limited = false;
  const http = await startHttpFixture({
    build: () => {
      const server = new Server({ name: "booking", version: "1.0.0" }, { capabilities: { tools: {} } });
      const tool = (name: string) => ({ name, description: `The ${name} tool.`, inputSchema: { type: "object" as const, properties: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool("book"), tool("status")] }));
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        const name = request.params.name;
        seen.push(name);
        if (name === "book" && !limited) {
          limited = true;
          throw new McpError(-32023, "Rate limit exceeded", { retryAfterMs: Date.now() + 2_000 });
        }
        return { content: [{ type: "text", text: `${name} ok` }] };
      });
      return server;
    },
  });
  cleanups.push(() => http.close());
  return { http, seen };
}

/** A toolkit (a worker) on the server; with `redis`, sharing its state there under `keyPrefix`. */
async function worker(http: HttpFixture, shared?: { socket: string; keyPrefix: string }): Promise<McpToolkit> {
  let redis: Redis | undefined;
  if (shared) {
    redis = new Redis({ path: shared.socket, maxRetriesPerRequest: 1 });
    redis.on("error", () => undefined);
  }
  const config: McpToolkitConfig = {
    servers: { booking: { transport: "http", url: http.url.href } },
    retry: { retries: 2, minTimeout: 5, maxTimeout: 5_000, randomize: false, maxRetryAfterMs: MAX_RETRY_AFTER_MS },
    breaker: { enabled: false },
    ...(shared && redis ? { sharedState: { redis, keyPrefix: shared.keyPrefix } } : {}),
  };
  const toolkit = await McpToolkit.connect(config);
  cleanups.push(async () => {
    await toolkit.close();
    redis?.disconnect();
  });
  return toolkit;
}

let ids = 0;
async function call(toolkit: McpToolkit, tool: string): Promise<{ status: string; content: string; error?: McpToolErrorJSON }> {
  const reply = (await toolkit.getTool(tool)!.invoke({ type: "tool_call", id: `w${++ids}`, name: tool, args: {} })) as ToolMessage;
  const content = typeof reply.content === "string" ? reply.content : JSON.stringify(reply.content);
  return { status: reply.status ?? "success", content, ...(reply.status === "error" ? { error: reply.artifact as McpToolErrorJSON } : {}) };
}

type Reply = Awaited<ReturnType<typeof call>>;

/** The call that met the bogus wait: failed at once, unretried, saying the server asked for longer than the policy allows. */
function expectToldLonger(reply: Reply): void {
  expect(reply.status).toBe("error");
  expect(reply.error).toMatchObject({ reason: "rate_limited", attempts: 1 });
  expect(reply.content).toMatch(/asked to wait .*longer than the retry policy allows \(maxRetryAfterMs 1000 ms\)/);
}

/** ...and says how long the server is held back instead (checked last, after what the hold does). */
const expectToldHold = (reply: Reply) => expect(reply.content).toMatch(/calls to it are held back for 1 s at most/);

describe("a server that states a wait far past maxRetryAfterMs (a timestamp for a delay)", () => {
  it("fails the call that got it, saying so, and holds the server for maxRetryAfterMs at most: another tool 2.5 s later goes through", async () => {
    const { http, seen } = await rateLimitedServer();
    const toolkit = await worker(http);
    const limited = await call(toolkit, "book");
    expectToldLonger(limited);
    expect(seen).toEqual(["book"]);
    await sleep(2_500);
    const later = await call(toolkit, "status");
    expect(later, "a call to another tool of the server 2.5 s later").toMatchObject({ status: "success", content: "status ok" });
    expect(seen).toEqual(["book", "status"]);
    expectToldHold(limited);
  });
});

describe.skipIf(skipFleet)("the same wait with sharedState on Redis", () => {
  let redis: RedisProcess;

  beforeAll(async () => {
    redis = await new RedisProcess().start();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  it("holds the fleet for maxRetryAfterMs at most: a second worker's call 2.5 s later goes through", async () => {
    const { http, seen } = await rateLimitedServer();
    const keyPrefix = `stated${Date.now()}`;
    const a = await worker(http, { socket: redis.socket, keyPrefix });
    const b = await worker(http, { socket: redis.socket, keyPrefix });
    const limited = await call(a, "book");
    expectToldLonger(limited);
    // What the fleet keeps of the wait: its key's PTTL (-2 once it ran out), read now, checked below.
    const probe = new Redis({ path: redis.socket });
    cleanups.push(async () => void probe.disconnect());
    const waitKey = serverKeys(keyPrefix, "booking", { transport: "http", url: http.url.href })[3]!;
    const keptMs = await probe.pttl(waitKey);
    await sleep(2_500);
    const later = await call(b, "status");
    expect(later, "worker B's call 2.5 s later").toMatchObject({ status: "success", content: "status ok" });
    expect(seen).toEqual(["book", "status"]);
    expect(keptMs, "the fleet's Retry-After wait, ms").toBeLessThanOrEqual(MAX_RETRY_AFTER_MS);
    expectToldHold(limited);
  });
});
