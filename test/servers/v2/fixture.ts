/**
 * A real MCP server built with the v2 server package (`@modelcontextprotocol/server`), with
 * tools that succeed and fail the way production servers do. One factory serves both eras:
 * over HTTP through `createMcpHandler` (per request) or a legacy session transport, over
 * stdio through `serveStdio`. The v1 fixture (../fixture.ts) stays beside it: most servers on
 * npm are still built on v1.
 */
import { inputRequired, McpServer, ProtocolError, Server, UrlElicitationRequiredError, type RegisteredTool } from "@modelcontextprotocol/server";
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
  /** Tools `retire` disabled: every instance built afterwards has them disabled too. */
  retired: Set<string>;
}

export function newV2State(): V2State {
  return { executions: new Map(), calls: [], aborted: 0, retired: new Set() };
}

export interface V2FixtureOptions {
  /** Called by the `crash` tool; over stdio it exits the process. */
  onCrash?: (code: number) => void;
  /** Called on every tool execution, before the tool acts (the stdio server logs it to a file). */
  onCall?: (tool: string) => void;
}

/** Builds one v2 McpServer instance: called once per request (HTTP) or per connection (stdio). */
export function buildV2Server(state: V2State = newV2State(), options: V2FixtureOptions = {}): McpServer {
  const server = new McpServer({ name: "fixture-v2", version: "2.0.0" });
  const record = (tool: string) => {
    state.calls.push(tool);
    options.onCall?.(tool);
  };
  // Every registration is kept by name, so that `retire` can disable a tool on this instance.
  const registered = new Map<string, RegisteredTool>();
  const register = server.registerTool.bind(server);
  server.registerTool = ((...args: Parameters<typeof register>) => {
    const tool = register(...args);
    registered.set(args[0], tool);
    return tool;
  }) as typeof server.registerTool;

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

  // The 2026-07-28 way to send the user to a URL (sign_in's -32042 exists only in the 2025 revisions);
  // toward a 2025-era client the SDK's shim asks for it with elicitation/create instead.
  server.registerTool("sign_in_url", { description: "Needs the user to visit a URL first (input request).", inputSchema: z.object({}) }, async () => {
    record("sign_in_url");
    return inputRequired({ inputRequests: { signIn: inputRequired.elicitUrl({ message: "Sign in to continue", url: "https://example.com/sign-in" }) } });
  });

  // A rule the listed JSON Schema cannot carry (a refinement): the client's own check passes an
  // odd number, and only the server's validation rejects it.
  server.registerTool("even", { description: "Takes an even number.", inputSchema: z.object({ n: z.number().refine((n) => n % 2 === 0, "n must be even") }) }, async ({ n }) => {
    record("even");
    return { content: [{ type: "text", text: `even ${n}` }] };
  });

  // Disables a tool on this instance and on every instance built later: a client holding the old
  // tool list then calls a tool the server no longer offers.
  server.registerTool("retire", { description: "Disables another tool.", inputSchema: z.object({ name: z.string() }) }, async ({ name }) => {
    record("retire");
    state.retired.add(name);
    registered.get(name)?.disable();
    return { content: [{ type: "text", text: `retired ${name}` }] };
  });

  for (const name of state.retired) registered.get(name)?.disable();
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

/**
 * A low-level v2 server whose tools break their declared output schema. McpServer checks its own
 * output and answers `isError`; this one sends the broken result, so the v2 client's own check
 * (against the schema it cached from tools/list) is what rejects it.
 */
export function buildV2OutputSchemaServer(state: V2State = newV2State()): Server {
  const server = new Server({ name: "output-schema-v2", version: "2.0.0" }, { capabilities: { tools: {} } });
  const outputSchema = { type: "object" as const, properties: { total: { type: "number" } }, required: ["total"] };
  server.setRequestHandler("tools/list", async () => ({
    tools: [
      { name: "wrong_structured", description: "structuredContent of the wrong type.", inputSchema: { type: "object" as const }, outputSchema },
      { name: "no_structured", description: "No structuredContent at all.", inputSchema: { type: "object" as const }, outputSchema },
    ],
  }));
  server.setRequestHandler("tools/call", async (request) => {
    state.calls.push(request.params.name);
    if (request.params.name === "no_structured") return { content: [{ type: "text" as const, text: "3" }] };
    return { content: [{ type: "text" as const, text: "three" }], structuredContent: { total: "three" } };
  });
  return server;
}
