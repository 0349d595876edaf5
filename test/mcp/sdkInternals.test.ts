/**
 * Pins every SDK internal the toolkit depends on (src/mcp/transport/sdkInternals.ts), and the SDK
 * behaviours its transports rely on, against the installed SDK: each test drives a real client
 * and fails when an update changes what it reads.
 */
import { Client, InMemoryTransport, StreamableHTTPClientTransport, type JSONRPCMessage, type TransportSendOptions } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { childProcessOf, outboundEnvelopeOf, readJsonAnswer } from "../../src/mcp/transport/sdkInternals.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { buildV2Server } from "../servers/v2/fixture.js";
import { startV2Http } from "../servers/v2/http.js";
import { v2StdioCommand, v2StdioEnv } from "../servers/v2/stdio.js";

const cleanups = closeAfterEach();

describe("SDK internals, pinned against the installed v2 client", () => {
  it("a started stdio transport keeps its child process in _process, whose exit reports code and signal", async () => {
    const transport = new StdioClientTransport({ ...v2StdioCommand(), env: v2StdioEnv(), stderr: "pipe" });
    cleanups.push(() => transport.close());
    expect(childProcessOf(transport)).toBeUndefined();
    await transport.start();
    const child = childProcessOf(transport);
    expect(child?.pid).toBe(transport.pid);
    const exited = new Promise<[number | null, string | null]>((resolve) => child!.once("exit", (code, signal) => resolve([code, signal])));
    child!.kill("SIGTERM");
    expect(await exited).toEqual([null, "SIGTERM"]);
  });

  it("the streamable transport reads a JSON answer through response.json(), and uses what it returns", async () => {
    const server = await startV2Http({ mode: "modern", responseMode: "json" });
    cleanups.push(() => server.close());
    let reads = 0;
    const transport = new StreamableHTTPClientTransport(server.url, {
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        if (response.headers.get("content-type")?.startsWith("application/json")) {
          readJsonAnswer(response, async (text) => {
            reads++;
            const data = JSON.parse(await text()) as { result?: { tools?: { name: string }[] } };
            // Renaming a listed tool shows the SDK took this value, not one of its own reading.
            for (const tool of data.result?.tools ?? []) if (tool.name === "echo") tool.name = "echo-as-read";
            return data;
          });
        }
        return response;
      },
    });
    // A 2026-07-28 exchange: the server answers it with JSON (2025 answers come as event streams).
    const client = new Client({ name: "pin", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    cleanups.push(() => client.close());
    await client.connect(transport);
    expect(client.getProtocolEra()).toBe("modern");
    const { tools } = await client.listTools();
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(tools.map((t) => t.name)).toContain("echo-as-read");
  });

  it("a 2026-07-28 client builds its per-request envelope in _outboundMetaEnvelope(), from its client info and capabilities (the Tasks extension's requests carry it)", async () => {
    const server = await startV2Http({ mode: "modern" });
    cleanups.push(() => server.close());
    const client = new Client({ name: "pin", version: "1.2.3" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } });
    cleanups.push(() => client.close());
    expect(outboundEnvelopeOf(client)).toBeUndefined();
    await client.connect(new StreamableHTTPClientTransport(server.url));
    expect(client.getProtocolEra()).toBe("modern");
    expect(outboundEnvelopeOf(client)).toMatchObject({
      "io.modelcontextprotocol/protocolVersion": client.getNegotiatedProtocolVersion(),
      "io.modelcontextprotocol/clientInfo": { name: "pin", version: "1.2.3" },
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
    });
  });
});

describe("SDK behaviour the transports rely on", () => {
  it("connect keeps the onmessage and onerror a transport held before, and calls them first", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const heard: JSONRPCMessage[] = [];
    const errors: Error[] = [];
    clientSide.onmessage = (message) => void heard.push(message);
    clientSide.onerror = (error) => void errors.push(error);
    const server = buildV2Server();
    await server.connect(serverSide);
    cleanups.push(() => server.close());
    const client = new Client({ name: "pin", version: "1.0.0" });
    cleanups.push(() => client.close());
    await client.connect(clientSide);
    await client.listTools();
    // The initialize answer and the tools/list answer both reached the handler set before connect.
    expect(heard.filter((m) => "result" in m).length).toBeGreaterThanOrEqual(2);
    clientSide.onerror!(new Error("from the transport"));
    expect(errors.map((e) => e.message)).toEqual(["from the transport"]);
  });

  it("a request's onresumptiontoken reaches transport.send as the caller gave it (requestScope.ts marks calls by it)", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = buildV2Server();
    await server.connect(serverSide);
    cleanups.push(() => server.close());
    const client = new Client({ name: "pin", version: "1.0.0" });
    cleanups.push(() => client.close());
    await client.connect(clientSide);
    const marks = new Map<unknown, unknown>();
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (message, options) => {
      if ("method" in message && message.method === "tools/call") marks.set("id" in message ? message.id : undefined, (options as TransportSendOptions | undefined)?.onresumptiontoken);
      return send(message, options);
    };
    const mark = () => {};
    await client.callTool({ name: "echo", arguments: { text: "marked" } }, { onresumptiontoken: mark });
    expect([...marks.values()]).toEqual([mark]);
  });
});
