/**
 * The chaos driver: many calls through McpToolkit against the fault-injecting server over
 * stdio and streamable HTTP, with leak probes around it; report.ts checks the invariants.
 * Used by `npm run chaos` (cli.ts) and by chaos.test.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import type { ToolMessage } from "@langchain/core/messages";
import { McpToolkit, type McpToolErrorJSON, type McpToolkitConfig } from "../../src/index.js";
import { startChaosHttp, type ChaosHttpServer } from "../servers/chaos/http.js";
import { Ledger } from "../servers/chaos/ledger.js";
import { DEFAULT_MIX, expectedOutcome, faultFor, FAULT_INFO, unit, type FaultMix } from "../servers/chaos/plan.js";
import { bundledChaosStdioCommand } from "../servers/chaos/stdio.js";
import { CHAOS_SECRET, evaluate, type CallRecord, type ChaosReport, type DrivenTransport, type ResolvedChaosOptions, type ToolFlavor } from "./report.js";
import { activeResources, childPids, listenerCounts, multisetExcess, RwLock, settleWithin, sleep } from "./support.js";

export { formatReport } from "./report.js";
export type { CallRecord, ChaosReport, DrivenTransport, Invariant, ToolFlavor } from "./report.js";

export interface ChaosOptions {
  calls: number;
  seed: number;
  /** @default ["stdio", "http"] */
  transports?: DrivenTransport[];
  /** Calls in flight at once. @default 8 */
  concurrency?: number;
  /**
   * Per-attempt timeout, in milliseconds: how long a hang lasts. Well above a loaded machine's
   * worst latency, so no call that was dealt a quick answer meets a real timeout. @default 2000
   */
  timeoutMs?: number;
  /** @default 2 */
  retries?: number;
  /** @default 10 */
  minBackoffMs?: number;
  /** @default 50 */
  maxBackoffMs?: number;
  /** @default DEFAULT_MIX */
  mix?: FaultMix;
  /** Attempts of a key on which a transient fault fires. @default 1 */
  transientAttempts?: number;
  /**
   * Run calls whose fault breaks the whole connection (a stdio process exit) alone on their
   * transport, so the calls around them keep the fault they were dealt. @default true
   */
  isolateDisruptive?: boolean;
  /** Progress lines while running. */
  log?: (line: string) => void;
}

/** Everything the model reads from a ToolMessage, as one string. */
function contentText(message: ToolMessage): string {
  const c = message.content as unknown;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((b) => (typeof b === "string" ? b : typeof b?.text === "string" ? b.text : JSON.stringify(b))).join("\n");
  return JSON.stringify(c);
}

class SettleCounter extends BaseCallbackHandler {
  name = "chaos-settle-counter";
  starts = 0;
  ends = 0;
  errors = 0;
  override handleToolStart(): void {
    this.starts++;
  }
  override handleToolEnd(): void {
    this.ends++;
  }
  override handleToolError(): void {
    this.errors++;
  }
}

export async function runChaos(input: ChaosOptions): Promise<ChaosReport> {
  const options: ResolvedChaosOptions = {
    calls: input.calls,
    seed: input.seed,
    transports: input.transports ?? (["stdio", "http"] as DrivenTransport[]),
    concurrency: input.concurrency ?? 8,
    timeoutMs: input.timeoutMs ?? 2000,
    retries: input.retries ?? 2,
    minBackoffMs: input.minBackoffMs ?? 10,
    maxBackoffMs: input.maxBackoffMs ?? 50,
    mix: input.mix ?? DEFAULT_MIX,
    transientAttempts: input.transientAttempts ?? 1,
    isolateDisruptive: input.isolateDisruptive ?? true,
  };
  const log = input.log ?? (() => {});
  const started = performance.now();
  // A starved event loop turns quick answers into real timeouts; the report shows how starved it got.
  const loopDelay = monitorEventLoopDelay({ resolution: 20 });
  loopDelay.enable();

  // Process-level faults: any of these is a crash the toolkit should have prevented.
  const crashes: string[] = [];
  const onRejection = (reason: unknown) => crashes.push(`unhandledRejection: ${String((reason as Error)?.stack ?? reason)}`);
  const onException = (error: unknown) => crashes.push(`uncaughtException: ${String((error as Error)?.stack ?? error)}`);
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);

  const baseline = { resources: activeResources(), children: new Set(childPids()), listeners: listenerCounts() };
  const dir = mkdtempSync(join(tmpdir(), "mcp-chaos-"));
  const ledgerFile = join(dir, "stdio-ledger");
  // `slow` answers after two timeouts, with progress five times per timeout.
  const slowTotalMs = options.timeoutMs * 2;
  const slowStepMs = Math.max(1, Math.round(options.timeoutMs / 5));
  const maxTotalTimeoutMs = options.timeoutMs * 4;

  let http: ChaosHttpServer | undefined;
  let toolkit: McpToolkit | undefined;
  const records: CallRecord[] = [];
  const counters = new Map<CallRecord, SettleCounter>();
  let retries = 0;
  let reconnects = 0;
  let childrenWhileOpen = 0;
  // Backoff for every retry at its largest (randomize doubles at most), capped by maxTimeout.
  let backoffBudget = 0;
  for (let r = 1; r <= options.retries; r++) backoffBudget += Math.min(options.maxBackoffMs, 2 * options.minBackoffMs * 2 ** (r - 1));
  let openRequestsAfterClose = -1;
  let openRequestsWhenIdle = -1;
  try {
    if (options.transports.includes("http")) {
      http = await startChaosHttp({ seed: options.seed, mix: options.mix, transientAttempts: options.transientAttempts, secret: CHAOS_SECRET, slowTotalMs, slowStepMs });
    }
    const servers: McpToolkitConfig["servers"] = {};
    if (options.transports.includes("stdio")) {
      servers.stdio = {
        transport: "stdio",
        ...(await bundledChaosStdioCommand(dir)),
        env: {
          CHAOS_SEED: String(options.seed),
          CHAOS_LEDGER: ledgerFile,
          CHAOS_MIX: JSON.stringify(options.mix),
          CHAOS_TRANSIENT_ATTEMPTS: String(options.transientAttempts),
          CHAOS_SECRET,
          CHAOS_SLOW_MS: String(slowTotalMs),
          CHAOS_SLOW_STEP_MS: String(slowStepMs),
        },
        trustAnnotations: true,
        reconnect: { minDelayMs: 20, maxDelayMs: 500 },
      };
    }
    if (http) {
      servers.http = { transport: "http", url: http.url.href, headers: { "X-Chaos-Token": CHAOS_SECRET }, trustAnnotations: true, reconnect: { minDelayMs: 20, maxDelayMs: 500 } };
    }
    toolkit = await McpToolkit.connect({
      servers,
      prefixToolNames: true,
      timeoutMs: options.timeoutMs,
      retry: { retries: options.retries, minTimeout: options.minBackoffMs, maxTimeout: options.maxBackoffMs, factor: 2 },
      // The breaker would turn a run of injected faults into circuit_open, which no single
      // call was dealt; it is tested on its own in test/policy.
      breaker: { enabled: false },
      // `slow` outlives one timeout but reports progress, which must keep it alive.
      tools: { "*": { resetTimeoutOnProgress: true, maxTotalTimeoutMs } },
      onEvent: (e) => {
        if (e.type === "retry") retries++;
        if (e.type === "reconnect") reconnects++;
      },
    });
    log(`connected to ${Object.keys(servers).join(" + ")} in ${Math.round(performance.now() - started)} ms`);

    const locks = new Map<DrivenTransport, RwLock>(options.transports.map((t) => [t, new RwLock()]));
    const tk = toolkit;

    const runOne = async (index: number): Promise<void> => {
      const key = `call-${index}`;
      const transport = options.transports[Math.floor(unit(options.seed, "transport", key) * options.transports.length)]!;
      const tool: ToolFlavor = unit(options.seed, "tool", key) < 0.5 ? "read" : "write";
      const fault = faultFor(options.seed, key, transport, options.mix);
      const expected = expectedOutcome(fault, tool === "read", options.retries, options.transientAttempts);
      const attemptCap = fault === "slow" ? maxTotalTimeoutMs : options.timeoutMs;
      const budgetMs = attemptCap * (options.retries + 1) + backoffBudget;
      const exclusive = options.isolateDisruptive && FAULT_INFO[fault].disruptive;
      const release = await locks.get(transport)!.acquire(exclusive);
      const counter = new SettleCounter();
      const record: CallRecord = {
        index, key, transport, tool, fault, expected, actual: "unsettled", attempts: 0, elapsedMs: 0, budgetMs,
        content: "", starts: 0, ends: 0, errors: 0, executions: 0, arrivals: 0, serverCancelled: 0,
      };
      records.push(record);
      counters.set(record, counter);
      const t0 = performance.now();
      try {
        const call = tk.getTool(`${transport}__${tool}`)!.invoke({ type: "tool_call", id: key, name: `${transport}__${tool}`, args: { key } }, { callbacks: [counter] });
        // A spawn after an exit is not bounded by the call's timeout: allow for it, generously.
        const settled = await settleWithin(call, budgetMs + 30_000);
        record.elapsedMs = performance.now() - t0;
        if (settled.status === "timeout") return;
        if (settled.status === "rejected") {
          record.actual = `threw:${String((settled.reason as Error)?.message ?? settled.reason)}`;
          return;
        }
        const message = settled.value as ToolMessage;
        const artifact = message.artifact as McpToolErrorJSON | undefined;
        record.content = contentText(message);
        if (message.status === "success") {
          record.actual = "ok";
          record.attempts = 0;
        } else {
          record.actual = artifact?.reason ?? "error-without-reason";
          record.attempts = artifact?.attempts ?? 0;
          record.outcome = artifact?.outcome;
          record.artifactMessage = artifact?.message;
        }
      } finally {
        release();
        if (++settledCount % 250 === 0) log(`${settledCount}/${options.calls} calls`);
      }
    };

    let next = 0;
    let settledCount = 0;
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (next < options.calls) await runOne(next++);
      }),
    );
    await awaitAllCallbacks();
    // A moment more: a late second settle of any call would show up in its counter.
    await sleep(300);
    for (const [record, counter] of counters) Object.assign(record, { starts: counter.starts, ends: counter.ends, errors: counter.errors });
    // Every call has settled: only the session's own GET stream may still be open on the server.
    if (http) openRequestsWhenIdle = http.openRequests;
    childrenWhileOpen = childPids().filter((p) => !baseline.children.has(p)).length;
  } finally {
    await toolkit?.close();
    if (http) {
      const deadline = Date.now() + 3_000;
      while (http.openRequests > 0 && Date.now() < deadline) await sleep(20);
      openRequestsAfterClose = http.openRequests;
    }
  }

  // Children are checked right after close(), before the HTTP server goes away.
  const leftoverChildren = await poll(() => childPids().filter((p) => !baseline.children.has(p)), (l) => l.length === 0, 3_000);
  await http?.close();
  const leftoverResources = await poll(() => multisetExcess(activeResources(), baseline.resources), (l) => l.length === 0, 3_000);
  const leftoverListeners = await poll(() => multisetExcess(listenerCounts(), baseline.listeners), (l) => l.length === 0, 1_000);

  // What the servers saw per key.
  const stdioLedger = Ledger.read(ledgerFile);
  for (const r of records) {
    const c = r.transport === "stdio" ? stdioLedger.get(r.key) : (http?.ledger.get(r.key) ?? { arrivals: 0, executions: 0, cancelled: 0 });
    r.executions = c.executions;
    r.arrivals = c.arrivals;
    r.serverCancelled = c.cancelled;
  }
  rmSync(dir, { recursive: true, force: true });
  const maxEventLoopDelayMs = loopDelay.max / 1e6;
  loopDelay.disable();
  process.off("unhandledRejection", onRejection);
  process.off("uncaughtException", onException);

  return evaluate(options, records, {
    crashes,
    backoffBudget,
    childrenWhileOpen,
    leftoverChildren,
    leftoverResources,
    leftoverListeners,
    ...(http ? { openRequestsWhenIdle, openRequestsAfterClose } : {}),
    retries,
    reconnects,
    maxEventLoopDelayMs,
    durationMs: performance.now() - started,
  });
}

async function poll<T>(read: () => T, done: (value: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let value = read();
  while (!done(value) && Date.now() < deadline) {
    await sleep(50);
    value = read();
  }
  return value;
}

