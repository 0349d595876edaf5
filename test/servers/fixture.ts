/**
 * A real MCP server (McpServer from the SDK) with tools that succeed and fail in the ways
 * production servers do. Used in memory, over stdio (stdio-server.ts) and over HTTP (http.ts).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** What the fixture saw, for assertions that count executions or aborts. */
export interface FixtureState {
  /** Executions per `key` argument of the `counter` and `transfer` tools. */
  executions: Map<string, number>;
  /** Calls of each tool, in order. */
  calls: string[];
  /** Requests whose handler saw its AbortSignal fire. */
  aborted: number;
  /** Remaining failures per tool for the `flaky_*` tools. */
  failuresLeft: Map<string, number>;
}

export function newState(): FixtureState {
  return { executions: new Map(), calls: [], aborted: 0, failuresLeft: new Map() };
}

const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

export interface FixtureOptions {
  name?: string;
  /** Called by the `crash` tool; over stdio it exits the process. */
  onCrash?: (code: number) => void;
  /** Called by `transfer` and `lookup` on their first execution; over stdio/HTTP it drops the connection. */
  onDrop?: () => void;
  /** Called on every tool execution, before the tool acts (a stdio server logs it to a file). */
  onCall?: (tool: string) => void;
}

function bump(state: FixtureState, key: string): number {
  const n = (state.executions.get(key) ?? 0) + 1;
  state.executions.set(key, n);
  return n;
}

/** Waits `ms`; resolves false at once if `signal` aborts (or already has). Shared with the v2 fixture. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

async function waitOrAbort(ms: number, signal: AbortSignal, state: FixtureState): Promise<boolean> {
  const finished = await sleepUnlessAborted(ms, signal);
  if (!finished) state.aborted++;
  return finished;
}

export function buildFixtureServer(state: FixtureState = newState(), options: FixtureOptions = {}): McpServer {
  const server = new McpServer({ name: options.name ?? "fixture", version: "1.0.0" }, { capabilities: { logging: {} } });
  const record = (tool: string) => {
    state.calls.push(tool);
    options.onCall?.(tool);
  };

  server.registerTool(
    "echo",
    {
      description: "Echo the text back.",
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    async ({ text }) => {
      record("echo");
      return { content: [{ type: "text", text }] };
    },
  );

  server.registerTool(
    "fail",
    { description: "Always answers isError.", inputSchema: { message: z.string().optional() } },
    async ({ message }) => {
      record("fail");
      return { content: [{ type: "text", text: message ?? "quota exceeded" }], isError: true };
    },
  );

  server.registerTool(
    "fail_empty",
    { description: "Answers isError with no content." },
    async () => {
      record("fail_empty");
      return { content: [], isError: true };
    },
  );

  server.registerTool(
    "fail_image",
    { description: "Answers isError with an image and no text." },
    async () => {
      record("fail_image");
      return { content: [{ type: "image", data: PNG_1PX, mimeType: "image/png" }], isError: true };
    },
  );

  server.registerTool(
    "throws",
    { description: "Throws inside the handler.", inputSchema: { message: z.string() } },
    async ({ message }) => {
      record("throws");
      throw new Error(message);
    },
  );

  server.registerTool(
    "counter",
    {
      description: "Counts executions per key (not idempotent).",
      inputSchema: { key: z.string() },
    },
    async ({ key }) => {
      record("counter");
      const n = bump(state, key);
      return { content: [{ type: "text", text: `count ${n}` }] };
    },
  );

  server.registerTool(
    "slow",
    {
      description: "Waits, then answers; stops early when cancelled.",
      inputSchema: { ms: z.number(), progressEveryMs: z.number().optional() },
      annotations: { readOnlyHint: true },
    },
    async ({ ms, progressEveryMs }, extra) => {
      record("slow");
      const token = extra._meta?.progressToken;
      if (progressEveryMs && token !== undefined) {
        let done = 0;
        while (done < ms) {
          const finished = await waitOrAbort(Math.min(progressEveryMs, ms - done), extra.signal, state);
          if (!finished) return { content: [{ type: "text", text: "cancelled" }] };
          done += progressEveryMs;
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: done, total: ms },
          });
        }
        return { content: [{ type: "text", text: `slept ${ms}` }] };
      }
      const finished = await waitOrAbort(ms, extra.signal, state);
      return { content: [{ type: "text", text: finished ? `slept ${ms}` : "cancelled" }] };
    },
  );

  server.registerTool(
    "mixed",
    { description: "Answers with every content type.", outputSchema: { total: z.number() } },
    async () => {
      record("mixed");
      return {
        content: [
          { type: "text", text: "hello" },
          { type: "image", data: PNG_1PX, mimeType: "image/png" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///notes.txt", text: "embedded notes", mimeType: "text/plain" } },
          { type: "resource_link", uri: "file:///report.pdf", name: "report", mimeType: "application/pdf" },
        ],
        structuredContent: { total: 3 },
      };
    },
  );

  server.registerTool(
    "crash",
    { description: "Writes to stderr and exits the server process.", inputSchema: { code: z.number() } },
    async ({ code }) => {
      record("crash");
      options.onCrash?.(code);
      return { content: [{ type: "text", text: "still alive" }] };
    },
  );

  server.registerTool(
    "transfer",
    {
      description: "Moves money (not idempotent); its connection drops mid-call the first time.",
      inputSchema: { key: z.string(), amount: z.number() },
      annotations: { destructiveHint: true, idempotentHint: false },
    },
    async ({ key, amount }) => {
      record("transfer");
      const n = bump(state, key);
      if (n === 1) options.onDrop?.();
      return { content: [{ type: "text", text: `transferred ${amount}` }] };
    },
  );

  server.registerTool(
    "lookup",
    {
      description: "Read-only lookup; its connection drops mid-call the first time.",
      inputSchema: { key: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ key }) => {
      record("lookup");
      const n = bump(state, key);
      if (n === 1) options.onDrop?.();
      return { content: [{ type: "text", text: `found ${key}` }] };
    },
  );

  server.registerTool(
    "flaky",
    {
      description: "Fails with isError until its failure budget is spent.",
      inputSchema: { key: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ key }) => {
      record("flaky");
      const left = state.failuresLeft.get(key) ?? 0;
      if (left > 0) {
        state.failuresLeft.set(key, left - 1);
        return { content: [{ type: "text", text: "temporarily unavailable, try again" }], isError: true };
      }
      return { content: [{ type: "text", text: `ok ${key}` }] };
    },
  );

  server.registerTool(
    "leaky",
    { description: "Fails with a message holding ANSI escapes, a stack and a secret." },
    async () => {
      record("leaky");
      throw new Error(
        "\u001b[31mboom\u001b[0m: upstream rejected Authorization: Bearer sk-live-0123456789abcdefghij\n    at handler (/srv/app.js:10:5)",
      );
    },
  );

  server.registerTool(
    "wrong_output",
    { description: "Declares an output schema and breaks it.", outputSchema: { total: z.number() } },
    async () => {
      record("wrong_output");
      return { content: [{ type: "text", text: "x" }], structuredContent: { total: "three" } as unknown as { total: number } };
    },
  );

  return server;
}

/**
 * A low-level `Server` whose tool handler throws, so errors travel as JSON-RPC error
 * responses (McpServer would turn them into `isError` results).
 * `raise` answers with `{ code, message, data }` from its arguments.
 */
export function buildProtocolErrorServer(): Server {
  const server = new Server({ name: "protocol-errors", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: "raise",
        description: "Answers with a JSON-RPC error.",
        inputSchema: {
          type: "object",
          properties: { code: { type: "number" }, message: { type: "string" }, data: {} },
          required: ["code"],
        },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as { code?: number; message?: string; data?: unknown };
    throw new McpError(args.code ?? -32603, args.message ?? "failure", args.data);
  });
  return server;
}
