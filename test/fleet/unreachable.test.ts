/**
 * Shared state must never make a call slower or fail: with a Redis client that never answers,
 * or one that fails every command, every call ends as it ends with no shared state at all.
 * No redis-server is needed: these clients are fakes of the two shapes the toolkit accepts.
 */
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent } from "../../src/index.js";
import type { RedisClientLike } from "../../src/config/schema.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";

const cleanups = closeAfterEach();
const never = () => new Promise<never>(() => undefined);
const failing = () => Promise.reject(new Error("ERR the Redis password is hunter2"));

const CLIENTS: [string, RedisClientLike][] = [
  ["an ioredis-shaped client whose promises never settle", { evalsha: never, eval: never }],
  ["a node-redis-shaped client whose promises never settle", { evalSha: never, eval: never }],
  ["a client that fails every command", { evalsha: failing, eval: failing }],
];

/** Six calls against a server whose next four answers are 503: what each call ends as, and what reached the server. */
async function scenario(redis?: RedisClientLike) {
  const events: McpEvent[] = [];
  const http = await startHttpFixture();
  const toolkit = await McpToolkit.connect({
    servers: { remote: { transport: "http", url: http.url.href } },
    retry: { retries: 2, minTimeout: 1, maxTimeout: 50, randomize: false },
    breaker: { failureThreshold: 3, halfOpenAfterMs: 60_000 },
    onEvent: (e) => events.push(e),
    ...(redis ? { sharedState: { redis, commandTimeoutMs: 20 } } : {}),
  });
  cleanups.push(() => http.close(), () => toolkit.close());
  const echo = toolkit.getTool("echo")!;
  const posts = http.posts;
  http.failNext(503, { count: 4 });
  const outcomes: string[] = [];
  for (let i = 0; i < 6; i++) outcomes.push(String(await echo.invoke({ text: "x" })).replace(/^Error: Tool 'echo' failed \((\w+)\).*$/s, "$1"));
  return { outcomes, posts: http.posts - posts, states: events.filter((e) => e.type === "shared_state"), toolkit };
}

describe("shared state when Redis does not answer", () => {
  it.each(CLIENTS)("changes nothing about a call, with %s", async (_, redis) => {
    const alone = await scenario();
    const shared = await scenario(redis);
    expect(alone.outcomes).toEqual(["service_unavailable", "circuit_open", "circuit_open", "circuit_open", "circuit_open", "circuit_open"]);
    expect(shared.outcomes).toEqual(alone.outcomes);
    expect(shared.posts).toBe(alone.posts);
    expect(shared.toolkit.circuitState("remote")).toBe("open");
  });

  it("reports a Redis error as a shared_state event, never in the model's text", async () => {
    const { outcomes, states } = await scenario({ evalsha: failing, eval: failing });
    expect(states).toEqual([{ type: "shared_state", status: "unavailable", detail: "Error: ERR the Redis password is hunter2" }]);
    expect(outcomes.join("\n")).not.toContain("Redis");
  });
});
