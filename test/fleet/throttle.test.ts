/**
 * The throttle shared on a real redis-server (Unix socket, temp dir): toolkits in this process,
 * the workers, each with its own Redis client, against one real streamable-HTTP MCP server that
 * admits a limited number of tool calls a sliding second (test/servers/limited.ts). Worker A
 * meets the server's 429s; worker B, which has sent nothing yet, then paces its first burst at
 * the fleet's rate instead of learning the limit from 429s of its own. With Redis down, the
 * throttle works per process. Counts the server's refusals; no assertion measures time.
 *
 * The limit is a number of calls a second, and a busy machine makes fewer calls a second: a
 * limit of 20 was never reached by this process kept to 12 calls a second. So each test first
 * measures what this process gets through now (the calibration), and the server's limit is a
 * quarter of that (20 at most, as on a quiet machine); the bursts and timeouts follow from it.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { McpToolkit, type McpEvent, type McpToolErrorJSON, type McpToolkitConfig, type ServerConfig, type ThrottleOptions } from "../../src/index.js";
import { throttleKey } from "../../src/fleet/keys.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startLimitedServer, type LimitedHttpServer } from "../servers/limited.js";
import { RedisProcess, redisServerFound } from "./redis.js";

const skip = !redisServerFound && process.env.CI !== "true";
if (skip) console.warn("test/fleet: redis-server is not on PATH, so the shared throttle tests are skipped (apt-get install redis-server; CI installs it).");

const cleanups = closeAfterEach();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const http = (server: LimitedHttpServer) => ({ transport: "http", url: server.url.href, throttle: true }) as ServerConfig;

let ids = 0;
async function call(toolkit: McpToolkit, tool: string): Promise<ToolMessage> {
  return (await toolkit.getTool(tool)!.invoke({ type: "tool_call", id: `t${++ids}`, name: tool, args: { q: "x" } })) as ToolMessage;
}

const CALIBRATION_CALLS = 64;

/** The calibration: calls a second that 16 callers of one toolkit get answered, here and now, by a server that limits nothing. */
async function callsPerSecond(): Promise<number> {
  const server = await startLimitedServer({ perSecond: Number.MAX_SAFE_INTEGER });
  const toolkit = await McpToolkit.connect({ servers: { limited: { transport: "http", url: server.url.href } } });
  try {
    // The first call pays for the session; the rest measure the calls alone.
    await call(toolkit, "search");
    let left = CALIBRATION_CALLS;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (left-- > 0) await call(toolkit, "search");
      }),
    );
    return (CALIBRATION_CALLS * 1000) / (performance.now() - started);
  } finally {
    await toolkit.close();
    await server.close();
  }
}

/** Calls a second, measured as the file is collected (vitest fixes a test's time limit then); each test measures again for its numbers. */
const COLLECTED_RATE = skip ? 1 : await callsPerSecond();
/** A test's limit: the waits it schedules itself, and 1,000 calls' time at this machine's speed now. */
const limit = (scheduledMs: number) => scheduledMs + (1_000 * 1000) / COLLECTED_RATE;

/** A test's numbers, from this process's calls a second now. */
function numbersFor(callsPerSec: number) {
  // A quarter of what this process gets through: its bursts always outrun the server.
  const perSecond = Math.min(20, Math.max(3, Math.floor(callsPerSec / 4)));
  // Six seconds' worth of the server's limit, fired at once: a burst that outruns it on any machine.
  const callers = 6 * perSecond;
  return {
    perSecond,
    callers,
    /**
     * The lookup tool's timeout, the longest its call may wait for its turn: three times the
     * burst's own time here and now (1 s at least), so that a burst sent alone reaches the server whole.
     */
    lookupTimeoutMs: Math.max(1000, Math.round((3 * callers * 1000) / callsPerSec)),
    /**
     * CUBIC flattened: after a cut the rate stays near a tenth of the rate the server took (K,
     * the time it takes back to it, is an hour), however long a busy machine stretches the test
     * and the lookup's timeout; with the default curve (K about 2 s) B's burst came seconds late
     * and went at the rate the server had refused. test/policy/throttle.test.ts tests the curve.
     */
    flat: { beta: 0.1, scale: (perSecond * 0.9) / 3600 ** 3 } satisfies ThrottleOptions,
  };
}

interface Worker {
  toolkit: McpToolkit;
  /** Has its Redis client brought back a cut of this server's throttle (from a background read)? */
  heardCut(): boolean;
}

/** A worker: its own Redis client when `socket` is given. */
async function worker(server: LimitedHttpServer, options: { socket?: string; keyPrefix: string; lookupTimeoutMs: number; throttle?: ThrottleOptions; events?: McpEvent[] }): Promise<Worker> {
  let client: Redis | undefined;
  let heard = false;
  if (options.socket) {
    client = new Redis({ path: options.socket, maxRetriesPerRequest: 1 });
    client.on("error", () => undefined);
    // So that a test waits for the worker to have heard the fleet's cut, not a guessed time: the
    // shared throttle's scripts (a background read, or its own cut) answer { id of the fleet's
    // last cut ('' for none), wMax, PTTL }.
    const key = throttleKey(options.keyPrefix, "limited", http(server));
    for (const name of ["evalsha", "eval"] as const) {
      const send = client[name].bind(client) as (...args: unknown[]) => Promise<unknown>;
      Object.assign(client, {
        [name]: async (...args: unknown[]) => {
          const reply = await send(...args);
          if (args[2] === key && Array.isArray(reply) && reply[0]) heard = true;
          return reply;
        },
      });
    }
  }
  const events = options.events ?? [];
  const config: McpToolkitConfig = {
    servers: { limited: { ...http(server), ...(options.throttle ? { throttle: options.throttle } : {}) } },
    tools: { lookup: { timeoutMs: options.lookupTimeoutMs } },
    onEvent: (event) => events.push(event),
    ...(client ? { sharedState: { redis: client, keyPrefix: options.keyPrefix } } : {}),
  };
  const toolkit = await McpToolkit.connect(config);
  cleanups.push(async () => {
    await toolkit.close();
    client?.disconnect();
  });
  return { toolkit, heardCut: () => heard };
}

/** `callers` callers, each calling again as soon as its call settles, until `until` settles (and fails if it fails). */
async function storm(toolkit: McpToolkit, callers: number, until: Promise<unknown>): Promise<ToolMessage[]> {
  let stopped = false;
  const stop = until.finally(() => (stopped = true));
  const replies: ToolMessage[] = [];
  const calling = Array.from({ length: callers }, async () => {
    while (!stopped) replies.push(await call(toolkit, "search"));
  });
  await Promise.all([stop, ...calling]);
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
  }, limit(10_000));

  afterAll(async () => {
    await redis?.stop();
  }, limit(10_000));

  /**
   * A fires a burst of lookups at once and meets the server's 429s; once the server's window has
   * emptied, B (which has sent nothing) fires the same burst. What the server refused of B's burst, and B's replies.
   */
  async function scenario(shared: boolean, numbers: ReturnType<typeof numbersFor>) {
    const prefix = `thr${++run}`;
    const server = await startLimitedServer({ perSecond: numbers.perSecond });
    cleanups.push(() => server.close());
    const options = { keyPrefix: prefix, lookupTimeoutMs: numbers.lookupTimeoutMs, throttle: numbers.flat, ...(shared ? { socket: redis.socket } : {}) };
    const a = await worker(server, options);
    const b = await worker(server, options);
    const { callers } = numbers;
    const burst = (w: Worker) => Promise.all(Array.from({ length: callers }, () => call(w.toolkit, "lookup")));
    await burst(a);
    expect(server.rejected).toBeGreaterThan(0);
    // B has heard the fleet's cut (its background read brought it back) before it sends.
    if (shared) await vi.waitFor(() => expect(b.heardCut()).toBe(true), { interval: 20, timeout: limit(5_000) });
    // The server's sliding second, and its Retry-After (whole seconds, 1 here), run out.
    await sleep(1200);
    const before = server.rejected;
    const replies = await burst(b);
    return { rejected: server.rejected - before, replies, callers };
  }

  it("paces a worker that has met no 429 at the rate the fleet learnt: the server refuses none of its first burst", async () => {
    const numbers = numbersFor(await callsPerSecond());
    const alone = await scenario(false, numbers);
    const shared = await scenario(true, numbers);
    // Alone, B sends its whole burst at once and the server refuses those past its limit.
    expect(alone.rejected).toBeGreaterThan(0);
    // Shared, B sends at the fleet's rate: the few whose turn comes within the lookup's timeout
    // go, and the rest fail at once, unsent, naming the wait; the server refuses none.
    expect(shared.rejected).toBe(0);
    expect(waitedTooLong(shared.replies).length).toBeGreaterThan(shared.callers / 2);
    expect(shared.replies.filter((r) => r.status !== "error").length).toBeGreaterThan(0);
  }, limit(60_000));

  it("keeps throttling per process when Redis is down: calls never wait on it, and the outage is a shared_state event", async () => {
    const { perSecond } = numbersFor(await callsPerSecond());
    const down = await new RedisProcess().start();
    cleanups.push(() => down.stop());
    const server = await startLimitedServer({ perSecond });
    cleanups.push(() => server.close());
    const events: McpEvent[] = [];
    const { toolkit } = await worker(server, { socket: down.socket, keyPrefix: `thr${++run}`, lookupTimeoutMs: 500, events });
    const waits = { interval: 20, timeout: limit(5_000) };
    await vi.waitFor(() => expect(events).toContainEqual({ type: "shared_state", status: "available" }), waits);
    await down.kill();

    // Four seconds' worth of the server's limit, calling without pause: the first contact meets
    // 429s, and from then on the throttle holds the callers in its queue.
    const callers = 4 * perSecond;
    const limited = (e: McpEvent) => (e.type === "retry" || e.type === "error") && e.error.reason === "rate_limited";
    // The stages below wait for the throttle's own pace (seconds by design), not for the CPU.
    const paced = { interval: 20, timeout: limit(30_000) };
    const throttled = async () => {
      // Stages counted in calls, not in ms: this process has read a 429, and the server has since
      // admitted two seconds' worth of calls, so the callers wait in the queue at the throttle's
      // rate (a few are in flight; the rest wait), far longer than the lookup's 500 ms.
      await vi.waitFor(() => expect(events.some(limited)).toBe(true), waits);
      const admitted = server.admitted;
      await vi.waitFor(() => expect(server.admitted - admitted).toBeGreaterThanOrEqual(2 * perSecond), paced);
      const late = await call(toolkit, "lookup");
      // Six seconds' worth in all: unthrottled, a process four times as fast as the limit would
      // have met some 18 × perSecond 429s meanwhile, over the bound below.
      await vi.waitFor(() => expect(server.admitted - admitted).toBeGreaterThanOrEqual(6 * perSecond), paced);
      return late;
    };
    const lateCall = throttled();
    const replies = await storm(toolkit, callers, lateCall);
    const late = await lateCall;

    expect(waitedTooLong([late])).toHaveLength(1);
    // Every call succeeded or failed rate_limited unsent; the server admitted each success.
    for (const reply of replies) if (reply.status === "error") expect((reply.artifact as McpToolErrorJSON).reason).toBe("rate_limited");
    expect(replies.filter((r) => r.status !== "error").length).toBe(server.admitted);
    // The first contact (one request per caller in flight) and a rare probe.
    expect(server.rejected).toBeLessThan(3 * callers);
    await vi.waitFor(() => expect(events.filter((e) => e.type === "shared_state").at(-1)).toMatchObject({ type: "shared_state", status: "unavailable" }), waits);
  }, limit(90_000));
});
