/** The v2 fixtures answer a v2 client in each deployment and era they claim to serve. */
import { Client, SdkError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { closeAfterEach } from "./cleanups.js";
import { startV2Http, type V2HttpMode } from "./v2/http.js";
import { v2StdioCommand } from "./v2/stdio.js";

const cleanups = closeAfterEach();

async function connect(transport: StreamableHTTPClientTransport | StdioClientTransport, mode: "legacy" | "auto" | { pin: "2026-07-28" }) {
  const client = new Client({ name: "smoke", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

describe("v2 fixtures", () => {
  it.each([
    ["modern", "auto", "modern"],
    ["modern", "legacy", "legacy"],
    ["legacy-session", "auto", "legacy"],
    ["modern-only", { pin: "2026-07-28" }, "modern"],
  ] as const)("the %s endpoint answers a client in mode %j on the %s era", async (endpoint, mode, era) => {
    const http = await startV2Http({ mode: endpoint as V2HttpMode });
    cleanups.push(() => http.close());
    const client = await connect(new StreamableHTTPClientTransport(http.url), mode);
    expect(client.getProtocolEra()).toBe(era);
    const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result.content).toEqual([{ type: "text", text: "hi" }]);
  });

  it("the modern-only endpoint refuses a 2025 client", async () => {
    const http = await startV2Http({ mode: "modern-only" });
    cleanups.push(() => http.close());
    const error = await connect(new StreamableHTTPClientTransport(http.url), "legacy").catch((e: unknown) => e);
    // What the v2 client throws: an SdkHttpError whose status is 400 and whose body holds -32022.
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).data).toMatchObject({ status: 400 });
    expect(String((error as SdkError & { data: { text?: string } }).data.text)).toContain('"code":-32022');
  });

  it("the stdio server answers both eras", async () => {
    for (const mode of ["legacy", "auto"] as const) {
      const client = await connect(new StdioClientTransport(v2StdioCommand()), mode);
      expect(client.getProtocolEra()).toBe(mode === "auto" ? "modern" : "legacy");
      const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
      expect(result.content).toEqual([{ type: "text", text: "hi" }]);
    }
  });
});
