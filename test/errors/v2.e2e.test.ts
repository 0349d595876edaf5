/**
 * ERRORS.md for the v2 SDK line: every error a real `@modelcontextprotocol/client` 2.4 throws
 * against real v2 servers (test/servers/v2), in both protocol eras, classified by `normalize`
 * with no context, as a user's own client would hand them to us.
 */
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { McpServer, Server } from "@modelcontextprotocol/server";
import { afterAll, describe, expect, it } from "vitest";
import { fromResult } from "../../src/errors/fromResult.js";
import type { McpToolError } from "../../src/errors/McpToolError.js";
import { normalize } from "../../src/errors/normalize.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { buildV2ProtocolErrorServer, buildV2Server } from "../servers/v2/fixture.js";
import { startV2Http } from "../servers/v2/http.js";
import { v2StdioCommand } from "../servers/v2/stdio.js";
import { rejectionOf } from "./helpers.js";

const cleanups = closeAfterEach();
type Mode = "legacy" | "auto" | { pin: "2026-07-28" };
/** Every classification made here, so the last test can check none fell through to `unknown`. */
const seen: McpToolError[] = [];

function classify(error: unknown): McpToolError {
  const e = normalize(error);
  seen.push(e);
  return e;
}

async function inMemory(build: () => McpServer | Server, mode: Mode = "legacy"): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await build().connect(serverSide);
  const client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(clientSide);
  cleanups.push(() => client.close());
  return client;
}

async function overHttp(mode: Mode, endpoint: "modern" | "modern-only" | "legacy-session" = "modern") {
  const http = await startV2Http({ mode: endpoint });
  const client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode } });
  cleanups.push(() => http.close());
  return { http, client, connect: () => client.connect(new StreamableHTTPClientTransport(http.url)).then(() => cleanups.push(() => client.close())) };
}

describe.each(["legacy", "auto"] as const)("a v2 client in %s mode", (mode) => {
  it("reads an unknown tool (JSON-RPC -32602 'Tool x not found') as tool_not_found, not as bad arguments", async () => {
    const client = await inMemory(() => buildV2Server(), mode);
    const error = await rejectionOf(client.callTool({ name: "nope", arguments: {} }));
    expect(error).toMatchObject({ name: "ProtocolError", code: -32602 });
    expect(classify(error)).toMatchObject({ reason: "tool_not_found", kind: "protocol", transient: false, outcome: "not_sent" });
  });

  it("reads the SDK's own timer (SdkError REQUEST_TIMEOUT with data.timeout) as request_timeout", async () => {
    const client = await inMemory(() => buildV2Server(), mode);
    const error = await rejectionOf(client.callTool({ name: "slow", arguments: { ms: 5000 } }, { timeout: 50 }));
    expect(error).toMatchObject({ name: "SdkError", code: "REQUEST_TIMEOUT", data: { timeout: 50 } });
    expect(classify(error)).toMatchObject({ reason: "request_timeout", transient: true, outcome: "unknown" });
  });

  it("reads an abort (the same code, with the abort in its text) as cancelled", async () => {
    const client = await inMemory(() => buildV2Server(), mode);
    const controller = new AbortController();
    const call = client.callTool({ name: "slow", arguments: { ms: 5000 } }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const error = await rejectionOf(call);
    expect(error).toMatchObject({ name: "SdkError", code: "REQUEST_TIMEOUT" });
    expect(classify(error)).toMatchObject({ reason: "cancelled", transient: false });
    // With the context the toolkit has, the abort is certain whatever the text says.
    expect(normalize(error, { aborted: true }).reason).toBe("cancelled");
  });

  it("reads a tool that needs input the client cannot give as elicitation_required, in either era's form", async () => {
    const client = await inMemory(() => buildV2Server(), mode);
    const outcome = await client.callTool({ name: "confirm", arguments: { action: "deploy" } }).then(
      (result) => fromResult(result)!,
      (error: unknown) => classify(error),
    );
    seen.push(outcome);
    expect(outcome).toMatchObject({ reason: "elicitation_required", transient: false, outcome: "not_sent" });
  });

  it("reads HTTP statuses from SdkHttpError: 503 service_unavailable, 502 server_error (may have run), 401 unauthorized", async () => {
    const { http, connect, client } = await overHttp(mode);
    await connect();
    for (const [status, reason, outcome] of [
      [503, "service_unavailable", "not_sent"],
      [502, "server_error", "unknown"],
      [401, "unauthorized", "not_sent"],
    ] as const) {
      http.failNext(status);
      const error = await rejectionOf(client.callTool({ name: "echo", arguments: { text: "x" } }));
      expect(error).toMatchObject({ name: "SdkHttpError", data: { status } });
      expect(classify(error), String(status)).toMatchObject({ reason, status, outcome });
    }
  });
});

describe("JSON-RPC errors a v2 server sends (ProtocolError)", () => {
  it.each([
    [-32602, "invalid_params", "not_sent"],
    [-32603, "internal_error", "unknown"],
    // v2 raises its own closes and timeouts as SdkError: -32000 and -32001 from a server are the server's.
    [-32000, "server_error", "unknown"],
    [-32001, "server_error", "unknown"],
    [-32020, "header_mismatch", "not_sent"],
    [-32021, "capability_missing", "not_sent"],
    [-32022, "protocol_version_unsupported", "not_sent"],
    [-32042, "elicitation_required", "not_sent"],
    [429, "rate_limited", "not_sent"],
  ] as const)("reads %i as %s", async (code, reason, outcome) => {
    const client = await inMemory(() => buildV2ProtocolErrorServer());
    const error = await rejectionOf(client.callTool({ name: "raise", arguments: { code, message: "boom" } }));
    expect(error).toMatchObject({ name: "ProtocolError", code });
    expect(classify(error)).toMatchObject({ reason, code, kind: "protocol", outcome });
  });

  it("names the capability a -32021 requires, and the versions a -32022 offers", async () => {
    const client = await inMemory(() => buildV2ProtocolErrorServer());
    const missing = await rejectionOf(client.callTool({ name: "raise", arguments: { code: -32021, message: "Missing capability", data: { requiredCapabilities: { sampling: {} } } } }));
    expect(classify(missing).message).toBe("Missing capability (required: sampling)");
    const elicit = await rejectionOf(client.callTool({ name: "raise", arguments: { code: -32021, message: "Missing capability", data: { requiredCapabilities: { elicitation: {} } } } }));
    expect(classify(elicit).reason).toBe("elicitation_required");
    const version = await rejectionOf(client.callTool({ name: "raise", arguments: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2026-07-28"], requested: "2025-06-18" } } }));
    expect(classify(version).message).toBe("Unsupported protocol version (the server supports 2026-07-28; we asked for 2025-06-18)");
  });
});

describe("connections a v2 client loses or never gets", () => {
  it("reads a 2025 initialize refused by a modern-only endpoint (HTTP 400 carrying -32022) as protocol_version_unsupported", async () => {
    const { connect } = await overHttp("legacy", "modern-only");
    const error = await rejectionOf(connect());
    expect(error).toMatchObject({ name: "SdkHttpError", data: { status: 400 } });
    const e = classify(error);
    expect(e).toMatchObject({ reason: "protocol_version_unsupported", code: -32022, transient: true, outcome: "not_sent" });
    expect(e.message).toContain("the server supports 2026-07-28");
  });

  it("reads a pinned 2026-07-28 client against a 2025-only endpoint (ERA_NEGOTIATION_FAILED) as protocol_version_unsupported", async () => {
    const { connect } = await overHttp({ pin: "2026-07-28" }, "legacy-session");
    const error = await rejectionOf(connect());
    expect(error).toMatchObject({ name: "SdkError", code: "ERA_NEGOTIATION_FAILED" });
    expect(classify(error)).toMatchObject({ reason: "protocol_version_unsupported", outcome: "not_sent" });
  });

  it("reads a refused probe (ERA_NEGOTIATION_FAILED over a failed fetch) by its cause: connection_refused", async () => {
    const { http, connect } = await overHttp("auto");
    await http.close();
    const error = await rejectionOf(connect());
    expect(error).toMatchObject({ name: "SdkError", code: "ERA_NEGOTIATION_FAILED" });
    expect(classify(error)).toMatchObject({ reason: "connection_refused", outcome: "not_sent" });
  });

  it("reads a stdio server that exits mid-call (SdkError CONNECTION_CLOSED) as connection_closed, and the next call as not_connected", async () => {
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(new StdioClientTransport(v2StdioCommand()));
    cleanups.push(() => client.close());
    const closed = await rejectionOf(client.callTool({ name: "crash", arguments: { code: 3 } }));
    expect(closed).toMatchObject({ name: "SdkError", code: "CONNECTION_CLOSED" });
    expect(classify(closed)).toMatchObject({ reason: "connection_closed", transient: true, outcome: "unknown" });
    const after = await rejectionOf(client.callTool({ name: "echo", arguments: { text: "x" } }));
    expect(classify(after)).toMatchObject({ reason: "not_connected", outcome: "not_sent" });
  });
});

afterAll(() => {
  // "none comes out unknown unless nothing in ERRORS.md fits": here, every one fits.
  expect(seen.filter((e) => e.reason === "unknown").map((e) => e.message)).toEqual([]);
  expect(seen.length).toBeGreaterThan(25);
});

describe("our toolkit against a modern-only v2 endpoint", () => {
  it("speaks 2026-07-28 to it: no SSE fallback, no 405, the tools work", async () => {
    const { McpToolkit } = await import("../../src/index.js");
    const http = await startV2Http({ mode: "modern-only" });
    cleanups.push(() => http.close());
    const toolkit = await McpToolkit.connect({ servers: { modern: { transport: "http", url: http.url.href } } });
    cleanups.push(() => toolkit.close());
    expect(toolkit.protocolEra("modern")).toBe("modern");
    const reply = await toolkit.getTool("echo")!.invoke({ id: "1", name: "echo", args: { text: "hi" }, type: "tool_call" });
    expect(reply.content).toBe("hi");
  });

  it("renegotiates once when told to start with the 2025 initialize, which the endpoint refuses with -32022", async () => {
    const { McpToolkit } = await import("../../src/index.js");
    const http = await startV2Http({ mode: "modern-only" });
    cleanups.push(() => http.close());
    const toolkit = await McpToolkit.connect({ servers: { modern: { transport: "http", url: http.url.href, era: "legacy" } } });
    cleanups.push(() => toolkit.close());
    expect(toolkit.protocolEra("modern")).toBe("modern");
  });

  it("reads a v1 client's refused initialize (HTTP 400 carrying -32022) as protocol_version_unsupported naming the versions", async () => {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const http = await startV2Http({ mode: "modern-only" });
    cleanups.push(() => http.close());
    const client = new Client({ name: "user", version: "1.0.0" });
    const thrown = await client.connect(new StreamableHTTPClientTransport(http.url)).catch((e: unknown) => e);
    const { normalize } = await import("../../src/errors/normalize.js");
    const error = normalize(thrown, { serverName: "modern" });
    expect(error).toMatchObject({ reason: "protocol_version_unsupported", code: -32022, serverName: "modern" });
    expect(error.message).toContain("the server supports 2026-07-28");
  });
});
