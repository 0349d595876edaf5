/**
 * Shared reads of resources (issue 45, item 3: on by default for resource reads): identical
 * reads in flight make one resources/read request and each caller gets its own copy; one
 * caller's abort leaves the others served; a `tools` key `<server>/resources/read` with
 * `coalesce: false` turns it off. A real v1 SDK server over streamable HTTP whose read takes
 * 300 ms and counts itself.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpToolkitConfig } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";

const cleanups = closeAfterEach();

async function setup(extra: Partial<McpToolkitConfig> = {}, stallFirst = false) {
  const state = { reads: 0, cancelled: 0 };
  const http = await startHttpFixture({
    build: () => {
      const server = new McpServer({ name: "docs", version: "1.0.0" });
      server.registerResource("guide", "test://guide", { mimeType: "text/plain" }, async (uri, extra) => {
        // The first read of a stalling server hangs until it is cancelled.
        if (++state.reads === 1 && stallFirst) {
          await new Promise<void>((resolve) => extra.signal.addEventListener("abort", () => resolve(), { once: true }));
          state.cancelled++;
          return { contents: [{ uri: uri.href, mimeType: "text/plain", text: "too late" }] };
        }
        await new Promise((resolve) => setTimeout(resolve, stallFirst ? 0 : 300));
        return { contents: [{ uri: uri.href, mimeType: "text/plain", text: "the guide" }] };
      });
      return server;
    },
  });
  cleanups.push(() => http.close());
  const toolkit = await McpToolkit.connect({ servers: { docs: { transport: "http", url: http.url.href } }, ...extra });
  cleanups.push(() => toolkit.close());
  return { state, toolkit };
}

describe("identical resource reads in flight", () => {
  it("share one request, each caller with its own copy", async () => {
    const { state, toolkit } = await setup();
    const docs = await Promise.all(Array.from({ length: 8 }, () => toolkit.resources.read("docs", "test://guide")));
    expect(state.reads).toBe(1);
    expect(docs.map((d) => d[0]!.pageContent)).toEqual(Array(8).fill("the guide"));
    // Copies: one caller changing its Document changes no other's.
    docs[0]![0]!.metadata.uri = "changed";
    expect(docs[1]![0]!.metadata.uri).toBe("test://guide");
  });

  it("leave the others served when one caller aborts", async () => {
    const { state, toolkit } = await setup();
    const quitter = new AbortController();
    const reads = Array.from({ length: 8 }, (_, i) => toolkit.resources.read("docs", "test://guide", i === 0 ? { signal: quitter.signal } : {}).then(
      (d) => d[0]!.pageContent,
      (e: { reason?: string }) => e.reason,
    ));
    setTimeout(() => quitter.abort(), 50);
    expect(await Promise.all(reads)).toEqual(["cancelled", ...Array(7).fill("the guide")]);
    expect(state.reads).toBe(1);
  });

  it("each go alone with `coalesce: false` on `<server>/resources/read`", async () => {
    const { state, toolkit } = await setup({ tools: { "docs/resources/read": { coalesce: false } } });
    await Promise.all(Array.from({ length: 8 }, () => toolkit.resources.read("docs", "test://guide")));
    expect(state.reads).toBe(8);
  });
});

describe("a hedged resource read (`hedge` on `<server>/resources/read`)", () => {
  it("sends a second read beside a stalled one, takes its answer, and cancels the stalled one on the server", async () => {
    const hedges: string[] = [];
    const { state, toolkit } = await setup({ tools: { "docs/resources/read": { hedge: { delayMs: 50 } } }, onEvent: (e) => e.type === "hedge" && hedges.push(`${e.attempt}:${e.outcome}`) }, true);
    const started = performance.now();
    const docs = await toolkit.resources.read("docs", "test://guide");
    expect(docs[0]!.pageContent).toBe("the guide");
    // Far sooner than the stalled read, which only a cancellation ends.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(hedges).toEqual(["2:sent", "2:won", "1:lost"]);
    await expect.poll(() => state.cancelled).toBe(1);
    expect(state.reads).toBe(2);
  });
});
