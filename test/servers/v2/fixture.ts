/**
 * A real MCP server built with the v2 server package (`@modelcontextprotocol/server`), with
 * tools that succeed and fail the way production servers do. One factory serves both eras:
 * over HTTP through `createMcpHandler` (per request) or a legacy session transport, over
 * stdio through `serveStdio`. The v1 fixture (../fixture.ts) stays beside it: most servers on
 * npm are still built on v1.
 */
import { inputRequired, McpServer, ProtocolError, Server, UrlElicitationRequiredError } from "@modelcontextprotocol/server";
import { z } from "zod";
import { sleepUnlessAborted } from "../fixture.js";

/** What the fixture saw, shared across the per-request instances of one endpoint. */
export interface V2State {
  /** Executions per `key` of the `counter` tool. */
  executions: Map<string, number>;
  /** Tool executions, in order. */
  calls: string[];
  /** Requests whose handler saw its signal abort. */
  aborted: number;
}

export function newV2State(): V2State {
  return { executions: new Map(), calls: [], aborted: 0 };
}

export interface V2FixtureOptions {
  /** Called by the `crash` tool; over stdio it exits the process. */
  onCrash?: (code: number) => void;
}

/** Builds one v2 McpServer instance: called once per request (HTTP) or per connection (stdio). */
export function buildV2Server(state: V2State = newV2State(), options: V2FixtureOptions = {}): McpServer {
  const server = new McpServer({ name: "fixture-v2", version: "2.0.0" });
  const record = (tool: string) => state.calls.push(tool);

  server.registerTool(
    "echo",
    { description: "Echo the text back.", inputSchema: z.object({ text: z.string() }), annotations: { readOnlyHint: true, idempotentHint: true } },
    async ({ text }) => {
      record("echo");
      return { content: [{ type: "text", text }] };
    },
  );

  server.registerTool("fail", { description: "Always answers isError.", inputSchema: z.object({ message: z.string().optional() }) }, async ({ message }) => {
    record("fail");
    return { content: [{ type: "text", text: message ?? "quota exceeded" }], isError: true };
  });

  server.registerTool("counter", { description: "Counts executions per key (not idempotent).", inputSchema: z.object({ key: z.string() }) }, async ({ key }) => {
    record("counter");
    const n = (state.executions.get(key) ?? 0) + 1;
    state.executions.set(key, n);
    return { content: [{ type: "text", text: `count ${n}` }] };
  });

  server.registerTool(
    "slow",
    { description: "Waits, then answers; stops early when cancelled.", inputSchema: z.object({ ms: z.number() }), annotations: { readOnlyHint: true } },
    async ({ ms }, ctx) => {
      record("slow");
      const finished = await sleepUnlessAborted(ms, ctx.mcpReq.signal);
      if (!finished) state.aborted++;
      return { content: [{ type: "text", text: finished ? `slept ${ms}` : "cancelled" }] };
    },
  );

  server.registerTool("crash", { description: "Exits the server process (stdio).", inputSchema: z.object({ code: z.number() }) }, async ({ code }) => {
    record("crash");
    options.onCrash?.(code);
    return { content: [{ type: "text", text: "still here" }] };
  });

  server.registerTool("confirm", { description: "Asks the client for a confirmation before it acts.", inputSchema: z.object({ action: z.string() }) }, async ({ action }, ctx) => {
    record("confirm");
    const answer = (ctx.mcpReq.inputResponses as Record<string, { action?: string; content?: { ok?: boolean } }> | undefined)?.ok;
    if (answer?.action === "accept" && answer.content?.ok === true) return { content: [{ type: "text", text: `done: ${action}` }] };
    if (answer !== undefined) return { content: [{ type: "text", text: `declined: ${action}` }], isError: true };
    return inputRequired({
      inputRequests: { ok: inputRequired.elicit({ message: `Really ${action}?`, requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } }) },
    });
  });

  server.registerTool("sign_in", { description: "Needs the user to visit a URL first.", inputSchema: z.object({}) }, async () => {
    record("sign_in");
    throw new UrlElicitationRequiredError([{ mode: "url", message: "Sign in to continue", url: "https://example.com/sign-in", elicitationId: "sign-in-1" }]);
  });

  server.registerTool(
    "wrong_output",
    { description: "Declares an output schema and breaks it.", outputSchema: z.object({ total: z.number() }) },
    async () => {
      record("wrong_output");
      return { content: [{ type: "text", text: "x" }], structuredContent: { total: "three" } as unknown as { total: number } };
    },
  );

  return server;
}

/** A low-level v2 server whose one tool answers with the JSON-RPC error it is asked for. */
export function buildV2ProtocolErrorServer(): Server {
  const server = new Server({ name: "protocol-errors-v2", version: "2.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", async () => ({
    tools: [{ name: "raise", description: "Answers with a JSON-RPC error.", inputSchema: { type: "object", properties: { code: { type: "number" }, message: { type: "string" }, data: {} }, required: ["code"] } }],
  }));
  server.setRequestHandler("tools/call", async (request) => {
    const args = (request.params.arguments ?? {}) as { code?: number; message?: string; data?: unknown };
    throw new ProtocolError(args.code ?? -32603, args.message ?? "failure", args.data);
  });
  return server;
}
