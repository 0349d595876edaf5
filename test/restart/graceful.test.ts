/**
 * A v2 server stopped gracefully (`createMcpHandler`'s close) while a call is in flight answers
 * that request HTTP 499 with an empty body: it ended the request before answering, and the tool
 * had started. That is a lost connection with an unknown outcome, worth a try once the server is
 * back, not a permanent HTTP error of a request that was never sent.
 */
import { describe, expect, it } from "vitest";
import { McpToolkit } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater, replyOf } from "../servers/replies.js";
import { startV2Http } from "../servers/v2/http.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

describe("a call in flight when a v2 server stops gracefully", () => {
  it("is connection_closed, outcome unknown, transient: the server's 499 with an empty body", async () => {
    const http = await startV2Http({ mode: "modern" });
    cleanups.push(() => http.close());
    const toolkit = later(await McpToolkit.connect({ servers: { v2: { transport: "http", url: http.url.href } }, retry: { retries: 0 } }));
    const calling = replyOf(toolkit.getTool("slow"), { ms: 20_000 });
    for (let i = 0; i < 500 && !http.state.calls.includes("slow"); i++) await new Promise((r) => setTimeout(r, 10));
    expect(http.state.calls).toContain("slow");
    await http.close();
    const reply = await calling;
    expect(reply.error).toMatchObject({ reason: "connection_closed", outcome: "unknown", transient: true, status: 499 });
    expect(reply.error!.message).toContain("499");
  });
});
