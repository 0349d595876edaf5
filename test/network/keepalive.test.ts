/**
 * The keep-alive race, behind a TCP proxy that closes idle connections. In "crossing" mode the
 * race's bad outcome is certain (a request arriving on a connection idle past the limit is dropped
 * and the connection closed, as if the close had crossed it), so each call below meets it unless
 * the client checks its connections first. The server counts executions.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_KEEPALIVE_CHECK_AFTER_MS } from "../../src/config/index.js";
import { startIdleProxy } from "../servers/proxy/idleProxy.js";
import { closeLater, server, toolkitFor } from "./helpers.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a proxy that closes idle keep-alive connections", () => {
  it("never fails a non-idempotent write spuriously, and never runs it twice", async () => {
    const http = await server();
    // Idle past the proxy's limit, and past the client's check threshold.
    const idleMs = DEFAULT_KEEPALIVE_CHECK_AFTER_MS + 100;
    const proxy = closeLater(await startIdleProxy(http.port, { idleMs, mode: "crossing" }));
    const { call } = await toolkitFor(proxy.wrap(http.url));
    const keys = ["a", "b", "c", "d"];
    for (const key of keys) {
      await sleep(idleMs + 100);
      expect(await call("counter", { key })).toMatchObject({ status: "success", content: "count 1" });
    }
    for (const key of keys) expect(http.state.executions.get(key)).toBe(1);
    // The race happened: the proxy dropped what came on its idle connections (the checks).
    expect(proxy.dropped).toBeGreaterThanOrEqual(keys.length);
  }, 30_000);

  it("pays nothing while calls keep the connection busy", async () => {
    const http = await server();
    const proxy = closeLater(await startIdleProxy(http.port, { idleMs: 60_000, mode: "crossing" }));
    const { call } = await toolkitFor(proxy.wrap(http.url));
    const before = http.seenHeaders.length;
    for (let i = 0; i < 5; i++) await call("counter", { key: `k${i}` });
    // Five tool calls, five POSTs: no OPTIONS check between busy calls.
    expect(http.seenHeaders.length - before).toBe(5);
  });
});
