/**
 * Hostile input from both sides. Server side: a real stdio server that writes raw bytes next
 * to the SDK's own (wrong ids, duplicates, stray notifications, a 20 MB line, deep JSON,
 * invalid UTF-8). Model side: arguments no schema allows, huge ones, `__proto__` keys, lone
 * surrogates. Every call must end in a clean success or a classified error, within its
 * timeout, without crashing the process or polluting Object.prototype.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { ToolMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpToolkit, type McpToolError, type McpToolErrorJSON } from "../../src/index.js";
import { startChaosHttp, type ChaosHttpServer } from "../servers/chaos/http.js";
import { bundledChaosStdioCommand } from "../servers/chaos/stdio.js";
import { overflowMs } from "./pipeTime.js";
import { childPids, settleWithin } from "./support.js";

const SECRET = "hostile-secret-5f0e9c1a77";
const RAW_TIMEOUT_MS = 2_000;
// A line past a stdio read buffer costs the SDK's buffer seconds of copying before it gives up on
// a quiet machine, and took past 30 s at a load of 14 on two cores (the call then ended in
// request_timeout, not connection_closed). The calls that move one wait a multiple of what
// filling the buffer costs here, measured as the file loads (so that the tests' own limits can
// follow from it), cold, in this run: 3-12 s at a load of 7-10, where the 20 MB line's call took
// 0.3x of it and the 12 MB of arguments' (serialised, and read by the server's buffer) 0.9x.
const OVERFLOW_MS = await overflowMs();
const BIG_TIMEOUT_MS = Math.max(30_000, Math.ceil(10 * OVERFLOW_MS));
const CALIBRATION = `filling a 10 MB read buffer took ${Math.round(OVERFLOW_MS)} ms here; timeout ${BIG_TIMEOUT_MS} ms`;
/** A test that moves such a line, then calls the restarted server. */
const BIG_TEST_MS = 3 * BIG_TIMEOUT_MS;

interface Reply {
  status: "success" | "error";
  reason?: string;
  content: string;
  artifact: unknown;
  elapsedMs: number;
}

let toolkit: McpToolkit;
let http: ChaosHttpServer;
let dir: string;
let baselineChildren: Set<number>;
const crashes: unknown[] = [];
const onCrash = (e: unknown) => crashes.push(e);

beforeAll(async () => {
  process.on("unhandledRejection", onCrash);
  process.on("uncaughtException", onCrash);
  baselineChildren = new Set(childPids());
  dir = mkdtempSync(join(tmpdir(), "mcp-hostile-"));
  const stdio = await bundledChaosStdioCommand(dir);
  http = await startChaosHttp({ seed: 1, secret: SECRET });
  toolkit = await McpToolkit.connect({
    servers: {
      // Two processes of the same server: one with a short timeout, one patient enough for a 20 MB line.
      raw: { transport: "stdio", ...stdio, env: { CHAOS_SECRET: SECRET }, timeoutMs: RAW_TIMEOUT_MS, reconnect: { minDelayMs: 10 } },
      big: { transport: "stdio", ...stdio, env: { CHAOS_SECRET: SECRET }, timeoutMs: BIG_TIMEOUT_MS, reconnect: { minDelayMs: 10 } },
      web: { transport: "http", url: http.url.href, timeoutMs: 10_000 },
    },
    prefixToolNames: true,
    retry: { retries: 0 },
    breaker: { enabled: false },
  });
}, 60_000);

afterAll(async () => {
  await toolkit?.close();
  await http?.close();
  rmSync(dir, { recursive: true, force: true });
  process.off("unhandledRejection", onCrash);
  process.off("uncaughtException", onCrash);
  // Nothing crashed the process, and no server process outlived the toolkit.
  expect(crashes).toEqual([]);
  expect(childPids().filter((p) => !baselineChildren.has(p))).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}, 30_000);

/** Calls a tool as an agent would, and insists it settles within `boundMs`. */
async function call(tool: string, args: unknown, boundMs = RAW_TIMEOUT_MS + 10_000): Promise<Reply> {
  const started = performance.now();
  const settled = await settleWithin(toolkit.getTool(tool)!.invoke({ type: "tool_call", id: `id-${tool}`, name: tool, args } as never), boundMs);
  const elapsedMs = performance.now() - started;
  expect(settled.status, `${tool} settled within ${boundMs} ms`).toBe("fulfilled");
  const message = (settled as { value: ToolMessage }).value;
  const artifact = message.artifact as McpToolErrorJSON | undefined;
  return {
    status: message.status === "error" ? "error" : "success",
    ...(message.status === "error" ? { reason: artifact?.reason } : {}),
    content: typeof message.content === "string" ? message.content : JSON.stringify(message.content),
    artifact: message.artifact,
    elapsedMs,
  };
}

const BIG_SETTLE_MS = BIG_TIMEOUT_MS + 15_000;
const hostile = (mode: string, server = "raw") => call(`${server}__hostile`, { mode }, server === "big" ? BIG_SETTLE_MS : undefined);

describe("a server that misbehaves on the wire", () => {
  it("ignores responses with ids it never sent and takes the one that matches", async () => {
    const reply = await hostile("wrong_id");
    expect(reply).toMatchObject({ status: "success", content: "right id after wrong ones" });
  });

  it("times out cleanly when only responses with wrong ids arrive", async () => {
    const reply = await hostile("wrong_id_only");
    expect(reply).toMatchObject({ status: "error", reason: "request_timeout" });
    expect((reply.artifact as McpToolErrorJSON).outcome).toBe("unknown");
  });

  it("takes the first of duplicate responses and keeps serving calls", async () => {
    expect(await hostile("duplicate")).toMatchObject({ status: "success", content: "first answer" });
    expect(await call("raw__echo", { payload: "after duplicates" })).toMatchObject({ status: "success" });
  });

  it("ignores progress for unknown tokens, cancellations of unknown requests and made-up notifications", async () => {
    expect(await hostile("unknown_progress")).toMatchObject({ status: "success", content: "answered after stray notifications" });
  });

  it("skips lines that are not JSON-RPC and answers the call", async () => {
    expect(await hostile("not_json")).toMatchObject({ status: "success", content: "answered after garbage lines" });
  });

  it("decodes invalid UTF-8 as replacement characters instead of failing", async () => {
    const reply = await hostile("invalid_utf8");
    expect(reply.status).toBe("success");
    expect(reply.content).toContain("bad bytes: \ufffd");
  });

  it("accepts a result whose structured content is nested 100,000 levels deep when it also has text", async () => {
    expect(await hostile("deep_result")).toMatchObject({ status: "success", content: "deep" });
  });

  it("classifies structured content too deep to render as text as invalid_result, not a crash", async () => {
    const reply = await hostile("deep_result_no_text");
    expect(reply).toMatchObject({ status: "error", reason: "invalid_result" });
    expect((reply.artifact as McpToolErrorJSON).outcome).toBe("executed");
  });

  // The result fails after the call succeeded, while it is turned into the model's content: what
  // LangChain hands a callback handler is still the redacted copy, as for a failed call.
  it("hands a callback handler the redacted copy of that invalid_result, the original only through unredacted()", async () => {
    const seen: unknown[] = [];
    const handler = BaseCallbackHandler.fromMethods({ handleToolError: (error: unknown) => void seen.push(error) });
    const message = (await toolkit.getTool("raw__hostile")!.invoke({ type: "tool_call", id: "id-deep", name: "raw__hostile", args: { mode: "deep_result_no_text" } } as never, { callbacks: [handler] })) as ToolMessage;
    expect(message.status).toBe("error");
    expect(seen).toHaveLength(1);
    const error = seen[0] as McpToolError;
    expect(error).toMatchObject({ name: "McpToolError", reason: "invalid_result", toolName: "raw__hostile" });
    expect(error.cause).toBeUndefined();
    expect(error.unredacted()).not.toBe(error);
    expect(error.unredacted().cause).toBeInstanceOf(RangeError);
  });

  it("keeps 100,000-deep error data bounded and serialisable in the artifact", async () => {
    const reply = await hostile("deep_error");
    expect(reply).toMatchObject({ status: "error", reason: "server_error" });
    const json = JSON.stringify(reply.artifact);
    expect(json.length).toBeLessThan(10_000);
  });

  it("never lets __proto__ or constructor.prototype in results or error data reach Object.prototype", async () => {
    expect(await hostile("proto_error")).toMatchObject({ status: "error", reason: "server_error" });
    const result = await hostile("proto_result");
    expect(result.status).toBe("success");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it("cleans ANSI escapes and redacts the secret in an error holding lone surrogates", async () => {
    const reply = await hostile("lone_surrogate_error");
    expect(reply).toMatchObject({ status: "error", reason: "tool_error" });
    expect(reply.content).not.toContain(SECRET);
    expect(reply.content).not.toMatch(/[\u001b\u009b]/);
    expect(reply.content.isWellFormed()).toBe(true);
  });

  it("turns a 20 MB line (past the SDK's 10 MB read buffer) into invalid_result, not a lost connection worth repeating, then reconnects", async () => {
    const reply = await hostile("huge_line", "big");
    expect(reply, CALIBRATION).toMatchObject({ status: "error", reason: "invalid_result" });
    expect(reply.artifact).toMatchObject({ outcome: "unknown", transient: false, data: { maxMessageBytes: 10 * 1024 * 1024 } });
    expect(reply.content.length).toBeLessThan(2_000);
    // The cause is the read buffer's limit, not the process exit that follows it.
    expect(reply.content).toContain("larger than the client accepts in one message");
    expect(await call("big__echo", { payload: "after the huge line" }, BIG_TIMEOUT_MS)).toMatchObject({ status: "success" });
  }, BIG_TEST_MS);
});

describe("a model that sends hostile arguments", () => {
  it.each([
    ["a string", "just text"],
    ["a number", 42],
    ["null", null],
    ["an array", [1, 2]],
    ["a boolean", true],
  ])("rejects %s as arguments with invalid_arguments, without calling the server", async (_label, args) => {
    const posts = http.posts;
    const reply = await call("web__echo", args);
    expect(reply).toMatchObject({ status: "error", reason: "invalid_arguments" });
    expect((reply.artifact as McpToolErrorJSON).outcome).toBe("not_sent");
    expect(reply.content).toContain("Fix the arguments");
    expect(http.posts).toBe(posts);
  });

  it("answers a plain non-object input (not a tool call) with readable error text", async () => {
    const text = await toolkit.getTool("web__echo")!.invoke(42 as never);
    expect(text).toMatch(/^Error: Tool 'web__echo' failed \(invalid_arguments\)/);
  });

  it("passes 2 MB arguments through to the server", async () => {
    const reply = await call("web__echo", { payload: "y".repeat(2 * 1024 * 1024) });
    expect(reply.status).toBe("success");
    expect(JSON.parse(reply.content)).toMatchObject({ payloadLength: 2 * 1024 * 1024 });
  });

  it("classifies arguments past the HTTP server's body limit as http_error (413, not sent)", async () => {
    const reply = await call("web__echo", { payload: "y".repeat(6 * 1024 * 1024) });
    expect(reply).toMatchObject({ status: "error", reason: "http_error" });
    expect(reply.artifact).toMatchObject({ status: 413, outcome: "not_sent" });
  });

  it("classifies arguments past a stdio server's 10 MB read buffer as connection_closed, then reconnects", async () => {
    const reply = await call("big__echo", { payload: "z".repeat(12 * 1024 * 1024) }, BIG_SETTLE_MS);
    expect(reply, CALIBRATION).toMatchObject({ status: "error", reason: "connection_closed" });
    expect(await call("big__echo", { payload: "small again" }, BIG_TIMEOUT_MS)).toMatchObject({ status: "success" });
  }, BIG_TEST_MS);

  it("never pollutes Object.prototype through __proto__ or constructor.prototype keys", async () => {
    const args = JSON.parse('{"payload":"p","__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}') as unknown;
    for (const tool of ["web__echo", "raw__echo"]) {
      const reply = await call(tool, args);
      expect(["success", "error"]).toContain(reply.status);
      if (reply.status === "error") expect(reply.reason).toBe("invalid_arguments");
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it("carries lone surrogates in arguments over HTTP and stdio without failing", async () => {
    const payload = "\ud800abc\udfff";
    for (const tool of ["web__echo", "raw__echo"]) {
      const reply = await call(tool, { payload, ["key\udc00"]: "v" });
      expect(reply.status, tool).toBe("success");
      expect(JSON.parse(reply.content)).toMatchObject({ payloadLength: payload.length });
    }
  });
});
