/**
 * Nothing leaks: a real stdio server, given DB_PASS and REDIS_PASS through its `env`, prints them
 * to stderr and dies in the middle of a call (or before connecting). Their values appear on no
 * path out of the library: the model's text, the ToolMessage and its artifact, events (as JSON
 * and as `util.inspect` prints them, hidden properties included), the error thrown in
 * `errors.mode: "throw"`, the error `connect()` rejects with, span status and attributes, and
 * `doctor`. The original stays reachable through `unredacted()`.
 */
import { inspect } from "node:util";
import { fileURLToPath } from "node:url";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { ToolMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDoctor } from "../../src/cli/doctor.js";
import { formatReport } from "../../src/cli/format.js";
import type { StdioServerConfig } from "../../src/config/index.js";
import { McpToolkit, type McpEvent, type McpToolError, type McpToolErrorJSON } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { registerSdk, type TestSdk } from "../telemetry/sdk.js";

// A word-like password, which only its name says is one (the name rule once missed `_PASS`), and
// one holding symbols.
const DB_PASS = "correcthorsebattery";
const REDIS_PASS = "r3d1s-s3cr3t!";
const SECRETS = [DB_PASS, REDIS_PASS];

const cleanups = closeAfterEach();
const call = (name: string, args: Record<string, unknown>) => ({ type: "tool_call" as const, id: "call-1", name, args });

function leakyServer(env: Record<string, string> = {}): StdioServerConfig {
  const entry = fileURLToPath(new URL("../servers/leaky-stdio.ts", import.meta.url));
  return { transport: "stdio", command: process.execPath, args: ["--import", "tsx", entry], env: { DB_PASS, REDIS_PASS, ...env } };
}

/** Every way a person or a program may read the thing: as text, JSON, and as console.log prints it. */
function renderings(thing: unknown): string[] {
  if (typeof thing === "string") return [thing];
  return [
    inspect(thing, { depth: 10 }),
    inspect(thing, { showHidden: false, depth: 10 }),
    inspect(thing, { showHidden: true, depth: 10 }),
    JSON.stringify(thing) ?? "",
    ...(thing instanceof Error ? [String(thing), String(thing.stack)] : []),
  ];
}

function expectNoSecret(label: string, ...things: unknown[]): void {
  for (const thing of things) {
    for (const text of renderings(thing)) for (const secret of SECRETS) expect(text.includes(secret), `${label} shows ${secret}:\n${text}`).toBe(false);
  }
}

/** The raw original still holds what the server printed: redaction hid it, nothing lost it. */
function expectSecretsIn(raw: McpToolError): void {
  expect(inspect(raw, { depth: 10 })).toContain(DB_PASS);
}

let sdk: TestSdk;
beforeAll(() => {
  sdk = registerSdk();
});
afterAll(async () => {
  await sdk.shutdown();
});

describe("secrets a stdio server prints to stderr", () => {
  it("reach neither the model, nor the artifact, nor events, nor spans when the server dies mid-call", async () => {
    const events: McpEvent[] = [];
    const toolkit = await McpToolkit.connect({ servers: { db: leakyServer() }, onEvent: (e) => events.push(e) });
    cleanups.push(() => toolkit.close());
    sdk.reset();

    const crashed = (await toolkit.getTool("query")!.invoke(call("query", { sql: "select 1" }))) as ToolMessage;
    expect(crashed.status).toBe("error");
    const artifact = crashed.artifact as McpToolErrorJSON;
    expect(artifact.reason).toBe("connection_closed");
    // The stderr did reach the text, with the secrets taken out.
    expect(String(crashed.content)).toContain("DB_PASS=[REDACTED]");
    expect(String(crashed.content)).toContain("REDIS_PASS=[REDACTED]");

    const answered = (await toolkit.getTool("login")!.invoke(call("login", {}))) as ToolMessage;
    expect((answered.artifact as McpToolErrorJSON).reason).toBe("tool_error");
    expect(String(answered.content)).toContain("password [REDACTED] rejected");

    expectNoSecret("model text", String(crashed.content), String(answered.content));
    expectNoSecret("artifact", artifact, answered.artifact);
    expectNoSecret("ToolMessage", crashed, answered);
    expectNoSecret("events", events);
    const errors = events.flatMap((e) => ("error" in e && e.error ? [e.error] : []));
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) {
      expect(error.cause).toBeUndefined();
      expectNoSecret("event error", error);
    }
    expectSecretsIn(errors[0]!.unredacted());

    const spans = sdk.spans();
    const failed = spans.filter((s) => s.status.message);
    expect(failed.length).toBeGreaterThan(0);
    expectNoSecret(
      "spans",
      spans.map((s) => ({ name: s.name, attributes: s.attributes, status: s.status, events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })) })),
    );
  });

  it("are not in what LangChain hands a callback handler (handleToolError), while the model's reply stays whole", async () => {
    const toolkit = await McpToolkit.connect({ servers: { db: leakyServer() } });
    cleanups.push(() => toolkit.close());
    const seen: unknown[] = [];
    const handler = BaseCallbackHandler.fromMethods({ handleToolError: (error: unknown) => void seen.push(error) });
    const answered = (await toolkit.getTool("login")!.invoke(call("login", {}), { callbacks: [handler] })) as ToolMessage;
    expect((answered.artifact as McpToolErrorJSON).reason).toBe("tool_error");
    expect(String(answered.content)).toContain("password [REDACTED] rejected");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ name: "McpToolError", reason: "tool_error" });
    expectNoSecret("callback error", seen[0]);
    expectSecretsIn((seen[0] as McpToolError).unredacted());
  });

  it('are not in the error thrown in errors.mode "throw"', async () => {
    const toolkit = await McpToolkit.connect({ servers: { db: leakyServer() }, errors: { mode: "throw" } });
    cleanups.push(() => toolkit.close());
    for (const [tool, args] of [["query", { sql: "select 1" }], ["login", {}]] as const) {
      const thrown = (await toolkit
        .getTool(tool)!
        .invoke(args)
        .then(
          () => undefined,
          (e: unknown) => e,
        )) as McpToolError;
      expect(thrown).toMatchObject({ reason: tool === "query" ? "connection_closed" : "tool_error" });
      expect(thrown.message).toContain("[REDACTED]");
      expect(thrown.cause).toBeUndefined();
      expectNoSecret(`thrown by ${tool}`, thrown, { wrapped: [thrown] });
      expectSecretsIn(thrown.unredacted());
    }
  });

  it("are not in the error connect() rejects with, nor in its error event, when the server dies before answering", async () => {
    const events: McpEvent[] = [];
    const rejected = (await McpToolkit.connect({ servers: { db: leakyServer({ LEAK_AT_START: "1" }) }, onEvent: (e) => events.push(e) }).then(
      (toolkit) => toolkit.close(),
      (e: unknown) => e,
    )) as McpToolError;
    expect(rejected).toMatchObject({ reason: "server_start_failed", serverName: "db" });
    expect(rejected.message).toContain("[REDACTED]");
    expect(rejected.cause).toBeUndefined();
    expectNoSecret("connect() rejection", rejected);
    expectNoSecret("connect events", events);
    expect(events.some((e) => e.type === "error")).toBe(true);
    expectSecretsIn(rejected.unredacted());
  });

  it("are not in what doctor reports, as text or as JSON", async () => {
    const report = await runDoctor({ servers: { db: leakyServer({ LEAK_AT_START: "1" }) } });
    expect(report.servers[0]!.error).toMatchObject({ reason: "server_start_failed" });
    expect(report.servers[0]!.error!.message).toContain("[REDACTED]");
    expectNoSecret("doctor", formatReport(report), report);
  });
});
