/**
 * The retry budget stops a sustained storm (issue 33, item 5): a server that answers every call
 * HTTP 503 gets, from 16 callers calling it in a loop, the retries the default budget pays for
 * (a bucket of 500 tokens, 5 a retry: 100 retries with no success in between) and then none,
 * however long the storm lasts. With no success the bucket only drains, so a storm of a few
 * seconds shows what one of 30 s would: 100 retries, then none. The breaker is off here: it
 * would stop the storm itself, and the budget is what is tested. Before, the budget (10 + 20 % of
 * the attempts in the last 10 s) let a fifth more load through for as long as the storm lasted.
 */
import { afterAll, describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent } from "../../src/index.js";
import { startHttpFixture } from "../servers/http.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("a server that fails every call", () => {
  it("gets the default budget's 100 retries, then none for the rest of the storm; it is called again once it answers", async () => {
    const http = await startHttpFixture();
    cleanups.push(() => http.close());
    // In order: each retry granted, and each call told the budget is spent.
    const log: ("retry" | "spent")[] = [];
    const onEvent = (e: McpEvent) => {
      if (e.type === "retry") log.push("retry");
      if (e.type === "error" && e.error.message.includes("retry budget is spent")) log.push("spent");
    };
    const toolkit = await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href } }, breaker: { enabled: false }, onEvent });
    cleanups.push(() => toolkit.close());
    const echo = toolkit.getTool("echo")!;
    http.failNext(503, { count: 1_000_000 });
    const posts = http.posts;
    const started = performance.now();
    let calls = 0;
    const caller = async () => {
      while (performance.now() - started < 8_000) {
        calls++;
        expect(String(await echo.invoke({ text: "x" }))).toContain("(service_unavailable)");
      }
    };
    await Promise.all(Array.from({ length: 16 }, caller));
    const granted = log.filter((e) => e === "retry").length;
    // The server saw each call once, and the 100 retries the bucket paid for: no more.
    expect(granted).toBe(100);
    expect(http.posts - posts).toBe(calls + 100);
    // Once a call was told the budget is spent, no call retried: the storm was stopped, not thinned.
    const firstSpent = log.indexOf("spent");
    expect(firstSpent, "a call told the budget is spent").toBeGreaterThan(0);
    expect(log.slice(firstSpent).filter((e) => e === "retry"), "retries after the budget was spent").toEqual([]);
    expect(calls, "calls in the storm").toBeGreaterThan(100);

    // The server answers again: calls succeed, and each success puts a token back.
    // (The fixture has no way to cancel a plan: its queue is emptied.)
    (http as unknown as { planned: unknown[] }).planned.length = 0;
    expect(String(await echo.invoke({ text: "back" }))).toBe("back");
  }, 60_000);
});
