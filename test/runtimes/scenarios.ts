/**
 * The runtime suites' cases, shared by bun.test.ts and deno.test.ts: each case runs the same
 * agent (agent.mjs) in Node and in the runtime under test, against the same real servers on
 * 127.0.0.1, and asserts that the runtime's reasons and outcomes are Node's.
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { sharedCleanups } from "../servers/cleanups.js";
import { startHttpFixture, type HttpFixture } from "../servers/http.js";
import { startFaultProxy, type FaultProxy } from "../servers/proxy/faultProxy.js";
import { selfSignedCertificate, TlsEndpoint, type SelfSigned } from "../servers/tls.js";
import { cannotStart, runAgent, type AgentPlan, type Line, type Runtime } from "./harness.js";

// Closed after each test in both files that import these cases (see `sharedCleanups`).
const cleanups = sharedCleanups;

/** A port on 127.0.0.1 that nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function upstream(): Promise<HttpFixture> {
  const http = await startHttpFixture();
  cleanups.push(() => http.close());
  return http;
}

async function proxyTo(http: HttpFixture): Promise<FaultProxy> {
  const proxy = await startFaultProxy(http.url);
  cleanups.push(() => proxy.close());
  return proxy;
}

let certificate: SelfSigned | undefined;

async function selfSignedUrl(): Promise<string> {
  // One certificate for both runs: openssl takes seconds on a loaded machine.
  certificate ??= selfSignedCertificate();
  const tls = await new TlsEndpoint((await upstream()).port, certificate).start();
  cleanups.push(() => tls.close());
  // The certificate names localhost: reached so, only its signer is wrong.
  return tls.url("/mcp", "localhost").href;
}

const RETRY = { retries: 2, minTimeout: 5, maxTimeout: 50, randomize: false };

function plan(url: string, steps: AgentPlan["steps"] = []): AgentPlan {
  return { config: { servers: { remote: { transport: "http", url } }, retry: RETRY, breaker: { enabled: false } }, steps };
}

/** What a case is compared on: the classification, not the message (which names ports). */
function verdicts(lines: Line[]): Line[] {
  return lines.map((l) => {
    if ("events" in l) return { events: l.events };
    const fields = (l.connect as Line | undefined) ?? l;
    return Object.fromEntries(["tool", "status", "content", "reason", "outcome", "kind", "transient", "attempts"].filter((k) => fields[k] !== undefined).map((k) => [k, fields[k]]));
  });
}

const executed = (http: HttpFixture, key: string) => http.state.executions.get(key) ?? 0;

export function describeRuntime(runtime: Runtime): void {
  const title = `${runtime} classifies transport failures as Node does`;
  const why = cannotStart(runtime);
  if (why) {
    describe(title, () => {
      it.skip(`skipped: ${why}`, () => undefined);
    });
    return;
  }

  /** Runs the plan in Node, then in the runtime, each against servers of its own from `setup()`. */
  async function both<T>(setup: () => Promise<T>, planOf: (t: T) => AgentPlan, at: (t: T, label: string) => Promise<void> | void = () => undefined) {
    const runs: { lines: Line[]; t: T }[] = [];
    for (const r of ["node", runtime] as const) {
      const t = await setup();
      runs.push({ lines: await runAgent(r, planOf(t), (label) => at(t, label)), t });
    }
    return { node: runs[0]!, other: runs[1]! };
  }

  describe(title, () => {
    it.each([
      ["a refused connect", async () => `http://127.0.0.1:${await closedPort()}/mcp`, { reason: "connection_refused", outcome: "not_sent", kind: "transport" }],
      ["a host DNS cannot find", async () => "http://nonexistent.invalid/mcp", { reason: "dns_failure", outcome: "not_sent", kind: "transport" }],
      ["a self-signed certificate", selfSignedUrl, { reason: "tls_error", outcome: "not_sent", kind: "transport" }],
    ])("connect: %s", async (_what, urlOf, expected) => {
      const { node, other } = await both(urlOf, (url) => plan(url));
      expect(node.lines[0]!.connect).toMatchObject(expected);
      expect(verdicts(other.lines)).toEqual(verdicts(node.lines));
    });

    it("connect: a port fetch refuses (port 1): Deno blocks it as Node does; Bun tries it and is refused, still not sent", async () => {
      const { node, other } = await both(async () => "http://127.0.0.1:1/mcp", (url) => plan(url));
      expect(node.lines[0]!.connect).toMatchObject({ reason: "http_error", outcome: "not_sent", kind: "transport" });
      const expected = runtime === "bun" ? { reason: "connection_refused", outcome: "not_sent", kind: "transport" } : verdicts(node.lines)[0]!;
      expect(verdicts(other.lines)[0]).toMatchObject(expected);
    });

    it("calls: a reset before the answer, a reset mid-body, then a refused connect; a write is never repeated on a guess", async () => {
      const setup = async () => {
        const http = await upstream();
        const proxy = await proxyTo(http);
        // The answer to key "m" is cut off mid-body, after the server ran the tool.
        proxy.plan({ kind: "reset_mid_body" }, { key: "m" });
        return { http, proxy };
      };
      const steps = [
        { tool: "counter", args: { key: "r" }, wait: "drop" },
        { tool: "counter", args: { key: "m" } },
        { tool: "counter", args: { key: "d" }, wait: "down" },
      ];
      const at = async ({ http, proxy }: { http: HttpFixture; proxy: FaultProxy }, label: string) => {
        if (label === "drop") http.dropNext();
        if (label === "down") await proxy.close();
      };
      const { node, other } = await both(setup, ({ proxy }) => plan(proxy.url.href, steps), at);
      const nodeVerdicts = verdicts(node.lines);
      expect(nodeVerdicts).toEqual([
        { tool: "counter", status: "error", reason: "connection_reset", outcome: "unknown", kind: "transport", transient: true, attempts: 1 },
        { tool: "counter", status: "error", reason: "stream_error", outcome: "unknown", kind: "transport", transient: true, attempts: 1 },
        { tool: "counter", status: "error", reason: "connection_refused", outcome: "not_sent", kind: "transport", transient: true, attempts: 3 },
        { events: ["retry", "retry"] },
      ]);
      const sentR = (t: { proxy: FaultProxy }) => t.proxy.seen.filter((r) => r.key === "r").length;
      expect(sentR(node.t)).toBe(1);
      if (runtime === "deno") {
        // Deno's fetch re-sends a POST on its own when the reused connection it went on closes
        // before any answer, though the proxy had read all of it. The toolkit never sees that
        // failure; here the server had dropped the first copy before running the tool.
        expect(verdicts(other.lines)).toEqual([{ tool: "counter", status: "success", content: "count 1" }, ...nodeVerdicts.slice(1)]);
        expect(sentR(other.t)).toBe(2);
      } else {
        expect(verdicts(other.lines)).toEqual(nodeVerdicts);
        expect(sentR(other.t)).toBe(1);
      }
      // The server's own count: the call cut off mid-body ran once and was not run again.
      for (const { t } of [node, other]) expect(executed(t.http, "m")).toBe(1);
      expect(executed(other.t.http, "d")).toBe(0);
    });

    it("an agent's run: an idempotent tool retried after its answer broke off succeeds, then the server goes down and the breaker opens", async () => {
      const setup = async () => {
        const http = await upstream();
        const proxy = await proxyTo(http);
        // The first call's answer breaks off mid-body: after the head, where no runtime re-sends on its own.
        proxy.plan({ kind: "reset_mid_body" });
        return { http, proxy };
      };
      const agentPlan = ({ proxy }: { proxy: FaultProxy }): AgentPlan => ({
        config: {
          servers: { remote: { transport: "http", url: proxy.url.href, trustAnnotations: true } },
          retry: RETRY,
          // Opens after two failures, and is not tested again within the run, however slow the machine.
          breaker: { failureThreshold: 2, initialHalfOpenAfterMs: 600_000, halfOpenAfterMs: 600_000 },
        },
        steps: [
          { tool: "echo", args: { text: "first" } },
          { tool: "echo", args: { text: "a" }, wait: "down" },
          { tool: "echo", args: { text: "b" } },
          { tool: "echo", args: { text: "c" } },
        ],
      });
      const at = async ({ proxy }: { proxy: FaultProxy }, label: string) => {
        if (label === "down") await proxy.close();
      };
      const { node, other } = await both(setup, agentPlan, at);
      const nodeVerdicts = verdicts(node.lines);
      expect(nodeVerdicts[0]).toEqual({ tool: "echo", status: "success", content: "first" });
      expect(nodeVerdicts.at(-2)).toMatchObject({ reason: "circuit_open", outcome: "not_sent" });
      expect(nodeVerdicts.at(-1)!.events).toEqual(expect.arrayContaining(["retry", "circuit_open"]));
      expect(verdicts(other.lines)).toEqual(nodeVerdicts);
      // The broken answer and its retry: the read-only tool ran twice, as it may.
      for (const { t } of [node, other]) expect(t.http.state.calls.filter((c) => c === "echo")).toHaveLength(2);
    });
  });
}
