/**
 * The servers the era suites run against, one per protocol era, transport and SDK line, each a
 * real process or listener, and a toolkit connected to one of them the way an agent uses it.
 *
 * - 2026-07-28 (`modern`): the v2 fixture behind `createMcpHandler` over HTTP; the v2 stdio
 *   fixture refusing 2025 openings, reached with `era: "auto"`.
 * - 2025 (`legacy`): the v2 package's sessionful Node transport over HTTP; the v2 stdio fixture
 *   reached with the stdio default (`initialize`); the v1 SDK's fixture over HTTP and stdio.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolMessage } from "@langchain/core/messages";
import { Server as V1Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { z } from "zod";
import type { McpEvent, McpToolErrorJSON, McpToolkitConfig, ServerConfig, ServerOptions } from "../../src/index.js";
import { McpToolkit } from "../../src/index.js";
import type { ProtocolEra } from "../../src/mcp/session/clients.js";
import { buildFixtureServer, buildProtocolErrorServer, type FixtureState } from "../servers/fixture.js";
import { startHttpFixture, type HttpFixture } from "../servers/http.js";
import { startFaultProxy, type FaultProxy } from "../servers/proxy/faultProxy.js";
import { stdioFixtureCommand } from "../servers/stdio.js";
import { buildV2OutputSchemaServer, buildV2ProtocolErrorServer } from "../servers/v2/fixture.js";
import { startV2Http, type V2HttpFixture } from "../servers/v2/http.js";
import { v2StdioCommand, v2StdioEnv } from "../servers/v2/stdio.js";

/** Which server a target runs: the fixture's tools, JSON-RPC errors on demand, or broken structured output. */
export type ServerKind = "fixture" | "protocol" | "outputs";

export interface Target {
  /** How the test names call it. */
  name: string;
  era: ProtocolEra;
  transport: "http" | "stdio";
  sdk: "v1" | "v2";
}

export const MODERN_HTTP: Target = { name: "a 2026-07-28 v2 server over HTTP", era: "modern", transport: "http", sdk: "v2" };
export const MODERN_STDIO: Target = { name: "a 2026-07-28 v2 server over stdio", era: "modern", transport: "stdio", sdk: "v2" };
export const LEGACY_HTTP: Target = { name: "a 2025 v2 server over HTTP (sessions)", era: "legacy", transport: "http", sdk: "v2" };
export const LEGACY_STDIO: Target = { name: "a 2025 v2 server over stdio", era: "legacy", transport: "stdio", sdk: "v2" };
export const V1_HTTP: Target = { name: "a 2025 v1 server over HTTP (sessions)", era: "legacy", transport: "http", sdk: "v1" };
export const V1_STDIO: Target = { name: "a 2025 v1 server over stdio", era: "legacy", transport: "stdio", sdk: "v1" };

export const ALL: Target[] = [MODERN_HTTP, MODERN_STDIO, LEGACY_HTTP, LEGACY_STDIO, V1_HTTP, V1_STDIO];
export const HTTP: Target[] = ALL.filter((t) => t.transport === "http");
export const STDIO: Target[] = ALL.filter((t) => t.transport === "stdio");
/** Every target but the v1 stdio fixture, whose process serves only the fixture (no `protocol` or `outputs` server). */
export const ANY_KIND: Target[] = ALL.filter((t) => t !== V1_STDIO);
/** Targets with the `even` and `retire` tools: the v2 fixture everywhere, the v1 fixture over HTTP (built here). */
export const WITH_EXTRA_TOOLS: Target[] = ANY_KIND;
/** Targets running the v2 fixture: `confirm` and `sign_in_url` ask for input through the v2 server's input requests. */
export const V2: Target[] = ALL.filter((t) => t.sdk === "v2");

/** What the model got from one call: its text, and the classified error when it failed. */
export interface Reply {
  status: "success" | "error";
  content: string;
  error?: McpToolErrorJSON;
}

/** An HTTP server under the toolkit: the v2 or the v1 fixture. */
export type Upstream = V2HttpFixture | HttpFixture;

export interface Opened {
  target: Target;
  toolkit: McpToolkit;
  events: McpEvent[];
  /** The HTTP server (HTTP targets). */
  upstream?: Upstream;
  /** The fault proxy the toolkit talks to (HTTP targets opened with `proxy: true`). */
  proxy?: FaultProxy;
  /** Calls a tool as an agent does and returns what the model reads. */
  call(tool: string, args: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<Reply>;
  /** Calls a tool that must fail and returns its classified error (the ToolMessage's artifact). */
  fail(tool: string, args: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<McpToolErrorJSON>;
  /** The tools the server executed, in order: the HTTP fixture's record, or the stdio process's log file. */
  executed(): string[];
}

export interface OpenOptions {
  kind?: ServerKind;
  /** Put the fault proxy between the toolkit and an HTTP server. */
  proxy?: boolean;
  /** How a 2026-07-28 HTTP server answers: `auto` (JSON unless it streams) or always `sse`. @default "auto" */
  responseMode?: "auto" | "sse";
  /** Merged into the server's config (timeoutMs, trustAnnotations, breaker, ...). */
  server?: Partial<ServerOptions> & { keepAliveCheckAfterMs?: number };
  /** Merged into the toolkit's config. */
  toolkit?: Partial<McpToolkitConfig>;
}

/** The name every target's server has in its toolkit. */
export const SERVER = "srv";

let ids = 0;

/**
 * Starts `target`'s server (of `kind`), connects a toolkit to it and checks that the connection
 * speaks the target's era. No retries and no breaker unless `options` asks for them: a matrix
 * test reads the classification of one attempt.
 */
export async function open(target: Target, defer: (close: () => unknown) => void, options: OpenOptions = {}): Promise<Opened> {
  const kind = options.kind ?? "fixture";
  let upstream: Upstream | undefined;
  let proxy: FaultProxy | undefined;
  let base: ServerConfig;
  let log: string | undefined;
  if (target.transport === "http") {
    upstream = await startUpstream(target, kind, options.responseMode);
    defer(() => upstream!.close());
    let url = upstream.url;
    if (options.proxy) {
      proxy = await startFaultProxy(url);
      defer(() => proxy!.close());
      url = proxy.url;
    }
    base = { transport: "http", url: url.href };
  } else {
    log = join(mkdtempSync(join(tmpdir(), "mcp-eras-")), "calls.log");
    base = stdioServer(target, kind, log);
  }
  const events: McpEvent[] = [];
  const toolkit = await McpToolkit.connect({
    servers: { [SERVER]: { ...base, ...options.server } },
    retry: { retries: 0, minTimeout: 5, maxTimeout: 5_000, randomize: false },
    breaker: { enabled: false },
    onEvent: (e) => events.push(e),
    ...options.toolkit,
  });
  defer(() => toolkit.close());
  expect(toolkit.protocolEra(SERVER)).toBe(target.era);
  const call = async (tool: string, args: Record<string, unknown>, callOptions: { signal?: AbortSignal } = {}): Promise<Reply> => {
    const found = toolkit.getTool(tool);
    if (!found) throw new Error(`${target.name} has no tool '${tool}'`);
    const reply = (await found.invoke({ type: "tool_call", id: `call-${++ids}`, name: tool, args }, callOptions.signal ? { signal: callOptions.signal } : undefined)) as ToolMessage;
    const content = typeof reply.content === "string" ? reply.content : JSON.stringify(reply.content);
    return reply.status === "error" ? { status: "error", content, error: reply.artifact as McpToolErrorJSON } : { status: "success", content };
  };
  return {
    target,
    toolkit,
    events,
    ...(upstream ? { upstream } : {}),
    ...(proxy ? { proxy } : {}),
    call,
    async fail(tool, args, callOptions) {
      const reply = await call(tool, args, callOptions);
      expect(reply.status, `${tool} answered: ${reply.content}`).toBe("error");
      return reply.error!;
    },
    executed() {
      if (upstream) return [...upstream.state.calls];
      try {
        return readFileSync(log!, "utf8").split("\n").filter(Boolean);
      } catch {
        return [];
      }
    },
  };
}

async function startUpstream(target: Target, kind: ServerKind, responseMode: "auto" | "sse" | undefined): Promise<Upstream> {
  if (target.sdk === "v1") {
    if (kind === "outputs") return startHttpFixture({ build: () => buildV1OutputSchemaServer() });
    if (kind === "protocol") return startHttpFixture({ build: () => buildProtocolErrorServer() });
    const retired = new Set<string>();
    return startHttpFixture({ build: (state, drop) => buildV1Fixture(state, drop, retired) });
  }
  const mode = target.era === "modern" ? "modern" : "legacy-session";
  const shape = responseMode ? { responseMode } : {};
  if (kind === "protocol") return startV2Http({ mode, ...shape, build: () => buildV2ProtocolErrorServer() });
  if (kind === "outputs") return startV2Http({ mode, ...shape, build: (state) => buildV2OutputSchemaServer(state) });
  return startV2Http({ mode, ...shape });
}

function stdioServer(target: Target, kind: ServerKind, log: string): ServerConfig {
  if (target.sdk === "v1") {
    if (kind !== "fixture") throw new Error(`the v1 stdio process serves only the fixture, not '${kind}'`);
    return { transport: "stdio", ...stdioFixtureCommand(), env: { FIXTURE_LOG: log } };
  }
  // The modern target refuses 2025 openings: only a 2026-07-28 connection gets through.
  if (target.era === "modern") return { transport: "stdio", ...v2StdioCommand(), era: "auto", env: v2StdioEnv({ server: kind, legacyReject: true, log }) };
  return { transport: "stdio", ...v2StdioCommand(), env: v2StdioEnv({ server: kind, log }) };
}

/**
 * The v1 fixture with the v2 fixture's `even` (a rule its JSON Schema cannot carry, so only the
 * server's own validation rejects an odd number) and `retire`, which here can disable `even`
 * (the fixture's own tools are registered out of reach), on the session's server and on those
 * built later.
 */
function buildV1Fixture(state: FixtureState, drop: () => void, retired: Set<string>) {
  const server = buildFixtureServer(state, { onDrop: drop });
  const registered = new Map<string, RegisteredTool>();
  const even = server.registerTool("even", { description: "Takes an even number.", inputSchema: { n: z.number().refine((n) => n % 2 === 0, "n must be even") } }, async ({ n }) => {
    state.calls.push("even");
    return { content: [{ type: "text", text: `even ${n}` }] };
  });
  registered.set("even", even);
  server.registerTool("retire", { description: "Disables another tool.", inputSchema: { name: z.string() } }, async ({ name }) => {
    state.calls.push("retire");
    retired.add(name);
    registered.get(name)?.disable();
    return { content: [{ type: "text", text: `retired ${name}` }] };
  });
  for (const name of retired) registered.get(name)?.disable();
  return server;
}

/**
 * A low-level v1 server whose tools break their declared output schema (McpServer would check its
 * own output first and answer `isError`): the 2025 twin of `buildV2OutputSchemaServer`.
 */
function buildV1OutputSchemaServer(): V1Server {
  const server = new V1Server({ name: "output-schema-v1", version: "1.0.0" }, { capabilities: { tools: {} } });
  const outputSchema = { type: "object" as const, properties: { total: { type: "number" } }, required: ["total"] };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: "wrong_structured", inputSchema: { type: "object" as const }, outputSchema },
      { name: "no_structured", inputSchema: { type: "object" as const }, outputSchema },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    request.params.name === "no_structured" ? { content: [{ type: "text", text: "3" }] } : { content: [{ type: "text", text: "three" }], structuredContent: { total: "three" } },
  );
  return server;
}
