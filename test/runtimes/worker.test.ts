/**
 * The runtime-neutral main entry (issue 36), as a Worker gets it:
 * - the built entry's chunks import no `node:` module, no Node built-in and no Node-only package;
 * - the quick start's agent as a Worker (examples/worker/worker.ts) bundles for workerd, and in
 *   workerd itself (Miniflare), with and without `nodejs_compat`, reaches a real MCP server on
 *   127.0.0.1 through a fault-injecting proxy: a 503 before forwarding is retried, a tool error
 *   reaches the model as an error ToolMessage, and the agent answers;
 * - a stdio server there fails at connect, naming the field;
 * - the same agent as a Vercel Edge function, in Vercel's edge-runtime emulation.
 */
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { createServer, type Server } from "node:http";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, inputRequired, McpServer } from "@modelcontextprotocol/server";
import { EdgeRuntime } from "edge-runtime";
import { z } from "zod";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpFixture, type HttpFixture } from "../servers/http.js";
import { startFaultProxy, type FaultProxy } from "../servers/proxy/faultProxy.js";
import { buildPackage, bundleForEdge, bundleForWorkerd, root } from "./build.js";

const NODE_BUILTINS = /^(node:|(assert|async_hooks|buffer|child_process|crypto|dns|events|fs|fs\/promises|http|https|http2|net|os|path|perf_hooks|process|readline|stream|tls|url|util|worker_threads|zlib)$)/;
/** Packages that only run on Node (a process, a socket, Redis). */
const NODE_ONLY = /^(cross-spawn|which|ioredis|redis|@redis\/|@modelcontextprotocol\/client\/stdio|@modelcontextprotocol\/sdk\/(client|server)\/stdio)/;

let dist = "";
let remove: () => Promise<void> = async () => undefined;
let workerScript = "";
let nodeOnlyScript = "";
let edgeScript = "";
let graphScript = "";
let graphAlsScript = "";
let interruptScript = "";
let interruptAlsScript = "";
let fixture: HttpFixture;
let proxy: FaultProxy;

beforeAll(async () => {
  ({ dist, remove } = await buildPackage());
  const out = join(dist, "..", "worker.js");
  await bundleForWorkerd(join(root, "examples", "worker", "worker.ts"), dist, out);
  workerScript = await readFile(out, "utf8");
  await bundleForWorkerd(join(root, "test", "runtimes", "fixtures", "nodeOnly.worker.ts"), dist, join(dist, "..", "nodeOnly.js"));
  nodeOnlyScript = await readFile(join(dist, "..", "nodeOnly.js"), "utf8");
  await bundleForEdge(join(root, "test", "runtimes", "fixtures", "edge.entry.ts"), dist, join(dist, "..", "edge.js"));
  edgeScript = await readFile(join(dist, "..", "edge.js"), "utf8");
  for (const name of ["graph", "graphAls"]) await bundleForWorkerd(join(root, "test", "runtimes", "fixtures", `${name}.worker.ts`), dist, join(dist, "..", `${name}.js`));
  graphScript = await readFile(join(dist, "..", "graph.js"), "utf8");
  graphAlsScript = await readFile(join(dist, "..", "graphAls.js"), "utf8");
  for (const name of ["interrupt", "interruptAls"]) await bundleForWorkerd(join(root, "test", "runtimes", "fixtures", `${name}.worker.ts`), dist, join(dist, "..", `${name}.js`));
  interruptScript = await readFile(join(dist, "..", "interrupt.js"), "utf8");
  interruptAlsScript = await readFile(join(dist, "..", "interruptAls.js"), "utf8");
  fixture = await startHttpFixture();
  proxy = await startFaultProxy(fixture.url);
}, 180_000);

afterAll(async () => {
  await proxy?.close();
  await fixture?.close();
  await remove();
});

/** Every module specifier a chunk imports, statically or dynamically. */
function importsOf(code: string): string[] {
  const found = new Set<string>();
  for (const match of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["']([^"']+)["']/g)) found.add(match[1]!);
  return [...found];
}

describe("the runtime-neutral build", () => {
  it("reaches no node: module, Node built-in or Node-only package from any entry's chunks", async () => {
    const folder = join(dist, "neutral");
    const files = (await readdir(folder)).filter((f) => f.endsWith(".js"));
    expect(files).toEqual(expect.arrayContaining(["index.js", "agents.js", "server.js"]));
    const offending: string[] = [];
    let local = 0;
    for (const file of files) {
      for (const specifier of importsOf(await readFile(join(folder, file), "utf8"))) {
        if (specifier.startsWith(".")) local++;
        else if (NODE_BUILTINS.test(specifier) || NODE_ONLY.test(specifier)) offending.push(`${file}: ${specifier}`);
      }
    }
    expect(local).toBeGreaterThan(0); // the walk read the chunks' imports
    expect(offending).toEqual([]);
    // The Node build, read the same way, does import them: the check can fail.
    const nodeIndex = await readdir(dist);
    const nodeImports = (await Promise.all(nodeIndex.filter((f) => f.endsWith(".js")).map(async (f) => importsOf(await readFile(join(dist, f), "utf8"))))).flat();
    expect(nodeImports.some((s) => NODE_BUILTINS.test(s) || NODE_ONLY.test(s))).toBe(true);
  });
});

interface AgentAnswer {
  tools: { name: string; status: string; content: string; reason?: string }[];
  retries: string[];
  answer: string;
}

/** What every runtime's run of the agent must give: the 503 retried once, the tool error handed to the model. */
function expectTheAgentsAnswer(status: number, body: AgentAnswer, echoesRun: number): void {
  expect(status).toBe(200);
  expect(body.retries).toHaveLength(1);
  expect(body.tools).toEqual([
    { name: "echo", status: "success", content: "hello" },
    expect.objectContaining({ name: "fail", status: "error", reason: "tool_error", content: expect.stringContaining("the tracker is down") }),
  ]);
  expect(body.answer).toBe("One tool answered; the other reported an error.");
  // The retried echo ran once: the 503 came before the server saw it.
  expect(echoesRun).toBe(1);
}

const echoes = () => fixture.state.calls.filter((c) => c === "echo").length;

describe.each([
  ["without nodejs_compat", [] as string[]],
  ["with nodejs_compat", ["nodejs_compat"]],
])("the quick start's agent as a Worker, in workerd %s", (_name, compatibilityFlags) => {
  it("retries a 503 the proxy gave before forwarding, and hands the model a tool's error as an error ToolMessage", async () => {
    // The modules named, not found by Miniflare's walk, which refuses langchain's `import(provider)` (initChatModel) though workerd runs the rest.
    const mf = new Miniflare({ modules: [{ type: "ESModule", path: "worker.mjs", contents: workerScript }], compatibilityDate: "2026-07-01", compatibilityFlags });
    try {
      proxy.plan({ kind: "status", when: "before", status: 503 }, { count: 1 });
      const before = echoes();
      const response = await mf.dispatchFetch(`http://worker/?mcp=${encodeURIComponent(String(proxy.url))}`);
      expectTheAgentsAnswer(response.status, (await response.json()) as AgentAnswer, echoes() - before);
    } finally {
      await mf.dispose();
    }
  }, 60_000);
});

describe("what needs Node, asked for in workerd", () => {
  it("fails at connect (or at load) with a message that names the option, and a config object still loads", async () => {
    const mf = new Miniflare({ modules: [{ type: "ESModule", path: "worker.mjs", contents: nodeOnlyScript }], compatibilityDate: "2026-07-01" });
    try {
      const body = (await (await mf.dispatchFetch("http://worker/")).json()) as Record<string, { name: string; message: string } | "accepted">;
      expect(body.stdio).toEqual({ name: "McpConfigError", message: expect.stringMatching(/servers\.files\.command: .*needs Node.*transport "http"/) });
      expect(body.sharedState).toEqual({ name: "McpConfigError", message: expect.stringMatching(/sharedState: .*needs Node/) });
      expect(body.configFile).toEqual({ name: "McpConfigError", message: expect.stringMatching(/\.\/mcp\.json: .*needs Node.*configuration object/) });
      expect(body.configObject).toBe("accepted");
    } finally {
      await mf.dispose();
    }
  }, 60_000);
});

describe("the quick start's agent as a Vercel Edge function, in edge-runtime", () => {
  it("retries a 503 the proxy gave before forwarding, and hands the model a tool's error as an error ToolMessage", async () => {
    const runtime = new EdgeRuntime({
      // The emulation (edge-runtime 4.0) lacks AbortSignal.any, which Vercel's Edge runtime has
      // (V8 since 11.6); the MCP SDK and LangChain both call it. Given here, only where missing.
      extend: (context) => {
        const Signal = context.AbortSignal as { any?: (signals: AbortSignal[]) => AbortSignal };
        Signal.any ??= (signals) => {
          const controller = new (context.AbortController as typeof AbortController)();
          for (const signal of signals) {
            if (signal.aborted) controller.abort(signal.reason);
            else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
          }
          return controller.signal;
        };
        return context;
      },
      initialCode: edgeScript,
    });
    proxy.plan({ kind: "status", when: "before", status: 503 }, { count: 1 });
    const before = echoes();
    const response = await runtime.dispatchFetch(`http://edge/?mcp=${encodeURIComponent(String(proxy.url))}`);
    expectTheAgentsAnswer(response.status, (await response.json()) as AgentAnswer, echoes() - before);
  }, 60_000);
});

describe("a LangGraph run in workerd: what needs an async context", () => {
  const run = async (script: string, compatibilityFlags: string[]) => {
    const mf = new Miniflare({ modules: [{ type: "ESModule", path: "worker.mjs", contents: script }], compatibilityDate: "2026-07-01", compatibilityFlags });
    try {
      proxy.plan({ kind: "status", when: "before", status: 503 }, { count: 1 });
      const response = await mf.dispatchFetch(`http://worker/?mcp=${encodeURIComponent(String(proxy.url))}`);
      return (await response.json()) as { heard: string[]; custom: { event?: string }[]; answers: string[] };
    } finally {
      await mf.dispose();
    }
  };

  it.each([["nodejs_compat"], ["nodejs_als"]])("with %s and LangChain's AsyncLocalStorage: progress on the custom stream, and the retry reaches the run's callbacks", async (flag) => {
    const body = await run(graphAlsScript, [flag]);
    expect(body.answers).toEqual(["slept 300"]);
    expect(body.custom.filter((c) => c.event === "mcp_progress").length).toBeGreaterThan(0);
    expect(body.heard).toContain("mcp_retry");
  }, 60_000);

  it("without an AsyncLocalStorage: progress still reaches the custom stream; the retry does not reach the run's callbacks (the README says so)", async () => {
    const body = await run(graphScript, []);
    expect(body.answers).toEqual(["slept 300"]);
    expect(body.custom.filter((c) => c.event === "mcp_progress").length).toBeGreaterThan(0);
    expect(body.heard).not.toContain("mcp_retry");
  }, 60_000);
});

describe("a server's question in a LangGraph run in workerd (langGraphInputHandler)", () => {
  // A 2026-07-28 refund tool (v2 SDK) that asks for confirmation before it acts.
  let refunds = 0;
  let http: Server;
  let url = "";
  let close: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const handler = createMcpHandler(() => {
      const server = new McpServer({ name: "billing", version: "1.0.0" });
      server.registerTool("refund", { description: "Refunds an order after confirmation.", inputSchema: z.object({ order: z.string() }) }, async ({ order }, ctx) => {
        const answer = (ctx.mcpReq.inputResponses as Record<string, { action: string; content?: { ok?: boolean } }> | undefined)?.confirm;
        if (!answer) return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ message: `Refund order ${order}?`, requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } }) } });
        if (answer.action !== "accept" || answer.content?.ok !== true) return { content: [{ type: "text", text: `Refund of ${order} declined.` }] };
        refunds++;
        return { content: [{ type: "text", text: `Refunded order ${order}.` }] };
      });
      return server;
    });
    const node = toNodeHandler(handler);
    http = createServer((req, res) => void node(req, res));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`;
    close = async () => {
      await handler.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    };
  });
  afterAll(() => close());

  const run = async (script: string, compatibilityFlags: string[]) => {
    const mf = new Miniflare({ modules: [{ type: "ESModule", path: "worker.mjs", contents: script }], compatibilityDate: "2026-07-01", compatibilityFlags });
    try {
      return (await (await mf.dispatchFetch(`http://worker/?mcp=${encodeURIComponent(url)}`)).json()) as { question: string | null; reply?: string; pausedReply?: string[] };
    } finally {
      await mf.dispose();
    }
  };

  it.each([["nodejs_compat"], ["nodejs_als"]])("with %s and LangChain's AsyncLocalStorage: the question pauses the graph, the answer resumes it, and the refund runs once", async (flag) => {
    const before = refunds;
    expect(await run(interruptAlsScript, [flag])).toEqual({ question: "Refund order 7?", reply: "Refunded order 7." });
    expect(refunds - before).toBe(1);
  }, 60_000);

  it("without an AsyncLocalStorage: nothing can pause, so the question is answered cancel and the server declines (the README says so)", async () => {
    const before = refunds;
    expect(await run(interruptScript, [])).toEqual({ question: null, pausedReply: ["Refund of 7 declined."] });
    expect(refunds).toBe(before);
  }, 60_000);
});
