/**
 * The retry policy's wait for a refused server (OutageWait): a refusal the server's listen watch
 * then sees end spends no retry; where the watch cannot tell, refusals spend retries and back off
 * as any transient failure does.
 */
import { describe, expect, it } from "vitest";
import { McpToolError } from "../../src/index.js";
import { resolveRetry, retryAfterFirst, type RetryHooks } from "../../src/policy/RetryPolicy.js";

const context = { toolName: "t", serverName: "s" };
const refused = (n = 1) => McpToolError.of("connection_refused", "Connection refused by 127.0.0.1:1.", { ...context, attempts: n });
const options = resolveRetry({ retries: 2, minTimeout: 100, factor: 2, randomize: false });

/** Retries of a call whose first attempt was refused; `answers[n]` is what attempt n+2 does. */
async function run(hooks: Omit<RetryHooks, "idempotent" | "context">, answers: ("refused" | "ok")[]) {
  const made: number[] = [];
  const started = performance.now();
  const outcome = await retryAfterFirst(
    refused(),
    true,
    async (n) => {
      made.push(n);
      if ((answers[n - 2] ?? "refused") === "ok") return "ok";
      throw refused(n);
    },
    options,
    { idempotent: false, context, ...hooks },
    started,
  ).then(
    (value) => ({ value, error: undefined }),
    (error: McpToolError) => ({ value: undefined, error }),
  );
  return { ...outcome, made, ms: performance.now() - started };
}

describe("a refused call's retries", () => {
  it("spend none while the listen watch sees the server back: three outages in one call, then success", async () => {
    const r = await run({ listening: async () => true, listenWaitMs: 30_000 }, ["refused", "refused", "ok"]);
    expect(r.value).toBe("ok");
    // Four attempts with two retries allowed: each refusal was followed by the server listening.
    expect(r.made).toEqual([2, 3, 4]);
  });

  it("spend retries, with their backoff, where the watch cannot tell (no address to watch)", async () => {
    const r = await run({ listening: async () => false, listenWaitMs: 30_000 }, []);
    expect(r.error?.reason).toBe("connection_refused");
    expect(r.made).toEqual([2, 3]);
    // 100 + 200 ms of backoff, as without a watch; before, the retries went at once.
    expect(r.ms).toBeGreaterThanOrEqual(280);
  });

  it("are as before without a watch", async () => {
    const r = await run({}, []);
    expect(r.error?.reason).toBe("connection_refused");
    expect(r.made).toEqual([2, 3]);
    expect(r.ms).toBeGreaterThanOrEqual(280);
  });
});
