/**
 * A fault-injecting MCP server on the SDK's low-level `Server`, so a failure can travel as a
 * JSON-RPC error, an `isError` result, a malformed result, a hang, a crash or raw bytes.
 *
 * Tools:
 * - `read`  (readOnlyHint, idempotentHint) and `write` (destructive, not idempotent) take
 *   `{ key }` and suffer the fault `faultFor(seed, key, transport)` (see plan.ts);
 * - `echo` describes the arguments it received (for hostile-input tests);
 * - `hostile` misbehaves on the wire in the way `mode` names (needs `hooks.writeRaw`).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type JSONRPCMessage, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Ledger } from "./ledger.js";
import { DEFAULT_MIX, faultFor, FAULT_INFO, firesOn, type ChaosTransport, type Fault, type FaultMix } from "./plan.js";

export interface ChaosHooks {
  /** Ends the server process mid-call (stdio). */
  exit?: (code: number) => void;
  /** Destroys the socket carrying this key's request once its response has started (HTTP). */
  dropSocket?: (key: string) => Promise<void>;
  /** Writes bytes straight to the wire, bypassing the SDK (stdio). */
  writeRaw?: (data: string | Uint8Array) => void;
}

export interface ChaosServerOptions {
  seed: number;
  transport: ChaosTransport;
  ledger: Ledger;
  /** @default DEFAULT_MIX */
  mix?: FaultMix;
  /** Attempts of a key on which a transient fault fires. @default 1 */
  transientAttempts?: number;
  /** An HTTP front counted the arrival before the MCP layer saw the request. @default false */
  frontCountsArrivals?: boolean;
  /** A secret the server leaks into `leaky_error` text (the client sent it as env or header). */
  secret?: string;
  /** How long `slow` takes in all. @default 600 */
  slowTotalMs?: number;
  /** How often `slow` reports progress. @default 60 */
  slowStepMs?: number;
  /** A hang ends by itself after this long, so no test can leave it behind. @default 120000 */
  hangMaxMs?: number;
  /** Aborted when the hosting process shuts down; ends every hang. */
  shutdown?: AbortSignal;
  hooks?: ChaosHooks;
}

const MALFORM = "chaos/malform";

const keySchema: Tool["inputSchema"] = {
  type: "object",
  properties: { key: { type: "string", description: "The request key; decides the fault." }, payload: { type: "string" } },
  required: ["key"],
};

const TOOLS: Tool[] = [
  {
    name: "read",
    description: "Reads a record (read-only, idempotent).",
    inputSchema: keySchema,
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  {
    name: "write",
    description: "Writes a record (not idempotent).",
    inputSchema: keySchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  },
  {
    name: "echo",
    description: "Describes the arguments it received.",
    inputSchema: { type: "object", properties: { payload: { type: "string" } } },
    annotations: { readOnlyHint: true },
  },
  {
    name: "hostile",
    description: "Misbehaves on the wire.",
    inputSchema: { type: "object", properties: { mode: { type: "string" } }, required: ["mode"] },
  },
];

/** Waits until `signal` or `shutdown` aborts, or `maxMs` passes; true when aborted. */
function waitForAbort(signal: AbortSignal, maxMs: number, shutdown?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted || shutdown?.aborted) return resolve(true);
    const done = (aborted: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      shutdown?.removeEventListener("abort", onAbort);
      resolve(aborted);
    };
    const onAbort = () => done(true);
    const timer = setTimeout(() => done(false), maxMs);
    signal.addEventListener("abort", onAbort, { once: true });
    shutdown?.addEventListener("abort", onAbort, { once: true });
  });
}

function text(t: string, isError = false): CallToolResult {
  return { content: [{ type: "text", text: t }], ...(isError ? { isError: true } : {}) };
}

/** About 1 MB of error text, as a server dumping a log would send. */
function hugeText(): string {
  const line = "chaos: row failed validation: value out of range; see attached diagnostics\n";
  return `chaos: huge error follows\n${line.repeat(Math.ceil(1_000_000 / line.length))}`;
}

/** The bearer token `leaky_error` leaks; no model text may contain it. */
export const LEAKED_BEARER = "sk-live-chaos0123456789abcdefXYZ";

/** Text with ANSI/OSC escapes, C1 controls, a bearer token and the configured secret. */
export function leakyText(secret: string | undefined): string {
  return (
    `\u001b[31mERROR\u001b[0m upstream refused the request: Authorization: Bearer ${LEAKED_BEARER} ` +
    `\u001b]8;;https://example.com\u0007link\u001b]8;;\u0007 token ${secret ?? "no-secret"} rejected \u009b1mbold\u001b[2K\r\n` +
    "    at handler (/srv/chaos/server.js:10:5)"
  );
}

/** Nested `{ a: { a: … } }` as JSON text, `depth` levels deep, built without recursion. */
export function deepJson(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

export function buildChaosServer(options: ChaosServerOptions): Server {
  const mix = options.mix ?? DEFAULT_MIX;
  const transientAttempts = options.transientAttempts ?? 1;
  const hangMaxMs = options.hangMaxMs ?? 120_000;
  const slowTotal = options.slowTotalMs ?? 600;
  const slowStep = options.slowStepMs ?? 60;
  const { ledger, hooks = {} } = options;
  const server = new Server({ name: "chaos", version: "1.0.0" }, { capabilities: { tools: {}, logging: {} } });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (name === "echo") return echo(args);
    if (name === "hostile") return hostile(String(args.mode), extra.requestId, extra.signal);
    if (name !== "read" && name !== "write") throw new McpError(ErrorCode.MethodNotFound, `Tool ${name} not found`);
    if (typeof args.key !== "string") throw new McpError(ErrorCode.InvalidParams, "Input validation error: 'key' must be a string");
    const key = args.key;
    const attempt = options.frontCountsArrivals ? Math.max(1, ledger.attempt(key)) : ledger.arrive(key);
    const planned = faultFor(options.seed, key, options.transport, mix);
    // A fault made in front of the server (its HTTP front, the proxy, the network) finds it working.
    const fault: Fault = FAULT_INFO[planned].by === "server" && firesOn(planned, attempt, transientAttempts) ? planned : "ok";
    if (FAULT_INFO[fault].executes) ledger.executed(key);

    switch (fault) {
      default: // "ok", and every fault made in front of the server
        return text(`${name} ${key}: done on attempt ${attempt}`);
      case "slow": {
        const token = extra._meta?.progressToken;
        for (let done = 0; done < slowTotal; done += slowStep) {
          if (await waitForAbort(extra.signal, Math.min(slowStep, slowTotal - done), options.shutdown)) {
            if (extra.signal.aborted) ledger.cancelled(key);
            return text("cancelled");
          }
          if (token !== undefined) {
            await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: done + slowStep, total: slowTotal } });
          }
        }
        return text(`${name} ${key}: slow answer after ${slowTotal} ms`);
      }
      case "is_error":
        return text(`chaos: the ${name} tool failed for ${key}: the record is locked by another writer`, true);
      case "protocol_invalid_params":
        throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for tool ${name}: 'key' ${key} is not a known record`);
      case "protocol_internal":
        throw new McpError(ErrorCode.InternalError, "chaos: internal error while processing the request");
      case "protocol_server":
        throw new McpError(-32050, "chaos: the storage backend is unavailable");
      case "protocol_elicitation":
        throw new McpError(-32042, "chaos: a person must authorize this at https://example.com/authorize", {
          elicitations: [{ mode: "url", elicitationId: `el-${key}`, url: "https://example.com/authorize", message: "Authorize the chaos app" }],
        });
      case "protocol_rate_limited":
        throw new McpError(429, "chaos: too many requests", { retryAfter: 0 });
      case "hang":
        // Only the client's cancellation counts, not this process shutting down.
        if ((await waitForAbort(extra.signal, hangMaxMs, options.shutdown)) && extra.signal.aborted) ledger.cancelled(key);
        return text("hang ended");
      case "exit":
        if (!hooks.exit) throw new Error("chaos: exit needs a process to end");
        hooks.exit(3);
        // exit() does not return in a real process; a test double may.
        await waitForAbort(extra.signal, hangMaxMs, options.shutdown);
        return text("survived exit");
      case "socket_drop":
        if (!hooks.dropSocket) throw new Error("chaos: socket_drop needs an HTTP front");
        // One event on the response stream first, so the drop happens mid-stream, not before headers.
        await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: `chaos: dropping ${key}` } });
        await hooks.dropSocket(key);
        if ((await waitForAbort(extra.signal, hangMaxMs, options.shutdown)) && extra.signal.aborted) ledger.cancelled(key);
        return text("dropped");
      case "malformed":
        // The SDK server validates results, so the breakage is applied on the wire (see serveChaos).
        return { content: [{ type: "text", text: "to be malformed" }], _meta: { [MALFORM]: true } };
      case "huge_error":
        return text(hugeText(), true);
      case "leaky_error":
        return text(leakyText(options.secret), true);
    }
  });

  function echo(args: Record<string, unknown>): CallToolResult {
    const payload = args.payload;
    const summary = {
      keys: Object.keys(args),
      ownProto: Object.hasOwn(args, "__proto__"),
      payloadLength: typeof payload === "string" ? payload.length : null,
      payloadHead: typeof payload === "string" ? payload.slice(0, 16) : null,
      // Checked in the server's own realm: an in-process server shares the test's prototype.
      polluted: (({}) as Record<string, unknown>).polluted !== undefined,
    };
    return { content: [{ type: "text", text: JSON.stringify(summary) }], structuredContent: summary };
  }

  async function hostile(mode: string, id: string | number, signal: AbortSignal): Promise<CallToolResult> {
    const raw = hooks.writeRaw;
    if (!raw) throw new McpError(ErrorCode.InvalidParams, "hostile modes need a raw wire (stdio)");
    const line = (message: unknown) => raw(`${JSON.stringify(message)}\n`);
    const answer = (result: unknown) => line({ jsonrpc: "2.0", id, result });
    switch (mode) {
      case "wrong_id":
      case "wrong_id_only":
        line({ jsonrpc: "2.0", id: typeof id === "number" ? id + 100_000 : `${id}-x`, result: { content: [{ type: "text", text: "for nobody" }] } });
        line({ jsonrpc: "2.0", id: "no-such-request", result: { content: [] } });
        line({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
        if (mode === "wrong_id") return text("right id after wrong ones");
        await waitForAbort(signal, hangMaxMs, options.shutdown);
        return text("too late");
      case "duplicate":
        answer({ content: [{ type: "text", text: "first answer" }] });
        answer({ content: [{ type: "text", text: "second answer" }] });
        return text("third answer");
      case "unknown_progress":
        for (const token of [424242, "ghost-token", -1]) {
          line({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: 1, total: 2 } });
        }
        line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 987654, reason: "unknown request" } });
        line({ jsonrpc: "2.0", method: "notifications/made_up", params: { x: 1 } });
        return text("answered after stray notifications");
      case "huge_line":
        // 20 MB on one line: far past the SDK's 10 MB read buffer.
        raw(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"${"x".repeat(20 * 1024 * 1024)}"}]}}\n`);
        return text("after the huge line");
      case "deep_result":
        raw(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"deep"}],"structuredContent":${deepJson(100_000)}}}\n`);
        return text("duplicate after deep result");
      case "deep_result_no_text":
        raw(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[],"structuredContent":${deepJson(100_000)}}}\n`);
        return text("duplicate after deep result");
      case "deep_error":
        raw(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":{"code":-32050,"message":"deep failure","data":${deepJson(100_000)}}}\n`);
        return text("duplicate after deep error");
      case "invalid_utf8": {
        const head = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"bad bytes: `);
        const tail = Buffer.from(`"}]}}\n`);
        raw(Buffer.concat([head, Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]), tail]));
        return text("duplicate after invalid utf-8");
      }
      case "lone_surrogate_error":
        return text(`chaos: bad name \ud800 and \udfff with token ${options.secret ?? "none"} and \u001b[31mred\u001b[0m`, true);
      case "proto_error":
        raw(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":{"code":-32050,"message":"proto in data","data":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}}}\n`);
        return text("duplicate after proto error");
      case "proto_result":
        raw(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[],"structuredContent":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}}}\n`);
        return text("duplicate after proto result");
      case "not_json":
        raw("this is not json at all\n");
        raw("{\"jsonrpc\":\"2.0\",\"id\":\n");
        return text("answered after garbage lines");
      default:
        throw new McpError(ErrorCode.InvalidParams, `unknown hostile mode ${mode}`);
    }
  }

  return server;
}

/** Rewrites a result marked for breaking: `content` becomes a string, which no client schema accepts. */
function malform(message: JSONRPCMessage): JSONRPCMessage {
  const result = (message as { result?: { _meta?: Record<string, unknown> } }).result;
  if (!result?._meta?.[MALFORM]) return message;
  return { ...message, result: { content: "this is not an array", isError: "maybe" } } as unknown as JSONRPCMessage;
}

/** Connects the server to `transport` with the wire-level rewrites the faults need. */
export async function serveChaos(server: Server, transport: Transport): Promise<void> {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(malform(message), options);
  await server.connect(transport);
}
