/**
 * The chaos driver: many calls through McpToolkit against the fault-injecting server over stdio
 * and over streamable HTTP behind a fault-injecting reverse proxy, plus spaced writes behind an
 * idle-closing proxy (race.ts), with leak probes around it; report.ts checks the invariants.
 * Used by `npm run chaos` (cli.ts) and by chaos.test.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import { DEFAULT_KEEPALIVE_CHECK_AFTER_MS, McpToolkit, type McpToolkitConfig } from "../../src/index.js";
import { startChaosHttp, type ChaosHttpServer } from "../servers/chaos/http.js";
import { Ledger } from "../servers/chaos/ledger.js";
import { DEFAULT_MIX, FAULT_INFO, type FaultMix } from "../servers/chaos/plan.js";
import { RETRY_AFTER_MS, startChaosProxy } from "../servers/chaos/proxy.js";
import { bundledChaosStdioCommand } from "../servers/chaos/stdio.js";
import type { FaultProxy } from "../servers/proxy/faultProxy.js";
import { startIdleProxy, type IdleProxy } from "../servers/proxy/idleProxy.js";
import { callInto, newRecord, SettleCounter } from "./calls.js";
import { dealer } from "./deal.js";
import { RACE_SERVER, runRace } from "./race.js";
import { CHAOS_SECRET, evaluate, type CallRecord, type ChaosReport, type DrivenTransport, type ResolvedChaosOptions, type RetryWait } from "./report.js";
import { activeResources, childPids, listenerCounts, multisetExcess, RwLock, sleep } from "./support.js";

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
   * worst latency, so no call that was dealt a quick answer meets a real timeout: by default
   * 2000, or 5 times the slowest of three starts of the stdio server measured at the run's
   * start (a restart after an injected exit happens inside the next call's attempt), whichever
   * is more.
   */
  timeoutMs?: number;
  /** @default 2 */
  retries?: number;
  /** @default 10 */
  minBackoffMs?: number;
  /**
   * Also the longest server-requested wait a call sits out (Retry-After): at least the proxy's
   * RETRY_AFTER_MS, or a call would give up on a wait it was dealt. @default 1000
   */
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
  /**
   * Spaced writes behind the idle-closing proxy (the keep-alive race), alongside the calls;
   * 0 without HTTP. @default max(4, calls / 50)
   */
  raceWrites?: number;
  /** Progress lines while running. */
  log?: (line: string) => void;
}

export async function runChaos(input: ChaosOptions): Promise<ChaosReport> {
  const transports = input.transports ?? (["stdio", "http"] as DrivenTransport[]);
  const dir = mkdtempSync(join(tmpdir(), "mcp-chaos-"));
  const stdioCommand = transports.includes("stdio") ? await bundledChaosStdioCommand(dir) : undefined;
  const startMs = stdioCommand ? await slowestStart(stdioCommand) : 0;
  const options: ResolvedChaosOptions = {
    calls: input.calls,
    seed: input.seed,
    transports,
    concurrency: input.concurrency ?? 8,
    timeoutMs: input.timeoutMs ?? Math.max(2000, Math.ceil(START_TIMEOUT_RATIO * startMs)),
    retries: input.retries ?? 2,
    minBackoffMs: input.minBackoffMs ?? 10,
    maxBackoffMs: input.maxBackoffMs ?? RETRY_AFTER_MS,
    mix: input.mix ?? DEFAULT_MIX,
    transientAttempts: input.transientAttempts ?? 1,
    isolateDisruptive: input.isolateDisruptive ?? true,
    raceWrites: input.transports?.includes("http") === false ? 0 : (input.raceWrites ?? Math.max(4, Math.round(input.calls / 50))),
  };
  const log = input.log ?? (() => {});
  if (stdioCommand) log(`the stdio server starts in ${Math.round(startMs)} ms at worst: timeout ${options.timeoutMs} ms`);
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
  const ledgerFile = join(dir, "stdio-ledger");
  // `slow` answers after two timeouts, with progress five times per timeout.
  const slowTotalMs = options.timeoutMs * 2;
  const slowStepMs = Math.max(1, Math.round(options.timeoutMs / 5));
  const maxTotalTimeoutMs = options.timeoutMs * 4;

  let http: ChaosHttpServer | undefined;
  let proxy: FaultProxy | undefined;
  let idle: IdleProxy | undefined;
  let toolkit: McpToolkit | undefined;
  const records: CallRecord[] = [];
  const counters = new Map<CallRecord, SettleCounter>();
  const retryWaits: RetryWait[] = [];
  let retries = 0;
  let reconnects = 0;
  let childrenWhileOpen = 0;
  // Backoff for every retry at its largest (randomize doubles at most), capped by maxTimeout.
  let backoffBudget = 0;
  for (let r = 1; r <= options.retries; r++) backoffBudget += Math.min(options.maxBackoffMs, 2 * options.minBackoffMs * 2 ** (r - 1));
  // Over HTTP a call may also sit out a Retry-After: its own before a retry, or another call's
  // at the server's gate before each attempt.
  const retryAfterBudget = (2 * options.retries + 1) * RETRY_AFTER_MS;
  // The race's proxy closes connections idle longer than the toolkit's check threshold.
  const idleMs = DEFAULT_KEEPALIVE_CHECK_AFTER_MS + 100;
  let openRequestsAfterClose = -1;
  let openRequestsWhenIdle = -1;
  try {
    if (options.transports.includes("http")) {
      http = await startChaosHttp({ seed: options.seed, mix: options.mix, transientAttempts: options.transientAttempts, secret: CHAOS_SECRET, slowTotalMs, slowStepMs });
      proxy = await startChaosProxy(http.url, { seed: options.seed, mix: options.mix, transientAttempts: options.transientAttempts });
      // Armed once the toolkit is connected: the race is the spaced writes', not the handshake's.
      if (options.raceWrites > 0) idle = await startIdleProxy(http.port, { idleMs, mode: "crossing", armed: false });
    }
    const servers: McpToolkitConfig["servers"] = {};
    if (stdioCommand) {
      servers.stdio = {
        transport: "stdio",
        ...stdioCommand,
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
    const httpServer = { transport: "http", headers: { "X-Chaos-Token": CHAOS_SECRET }, trustAnnotations: true, reconnect: { minDelayMs: 20, maxDelayMs: 500 } } as const;
    if (proxy) servers.http = { ...httpServer, url: proxy.url.href };
    if (idle && http) servers[RACE_SERVER] = { ...httpServer, url: idle.wrap(http.url).href };
    toolkit = await McpToolkit.connect({
      servers,
      prefixToolNames: true,
      timeoutMs: options.timeoutMs,
      retry: { retries: options.retries, minTimeout: options.minBackoffMs, maxTimeout: options.maxBackoffMs, factor: 2 },
      // The breaker would turn a run of injected faults into circuit_open, and the retry budget
      // would refuse retries once injected faults passed its ratio: neither is a fault any
      // single call was dealt. Both are tested on their own in test/policy.
      breaker: { enabled: false },
      retryBudget: { enabled: false },
      // `slow` outlives one timeout but reports progress, which must keep it alive.
      tools: { "*": { resetTimeoutOnProgress: true, maxTotalTimeoutMs } },
      onEvent: (e) => {
        if (e.type === "retry") {
          retries++;
          if ((e.error.retryAfterMs ?? 0) > 0) retryWaits.push({ asked: e.error.retryAfterMs!, waited: e.delayMs, reason: e.error.reason });
        }
        if (e.type === "reconnect") reconnects++;
      },
    });
    log(`connected to ${Object.keys(servers).join(" + ")} in ${Math.round(performance.now() - started)} ms`);
    idle?.arm();

    const locks = new Map<DrivenTransport, RwLock>(options.transports.map((t) => [t, new RwLock()]));
    const deal = dealer(options);
    const tk = toolkit;
    const budgetFor = (transport: DrivenTransport, attemptCapMs: number) =>
      attemptCapMs * (options.retries + 1) + backoffBudget + (transport === "http" ? retryAfterBudget : 0);
    // A spawn after an exit is not bounded by the call's timeout: allow for it, generously.
    const waitFor = (budgetMs: number) => budgetMs + 30_000;

    const runOne = async (index: number): Promise<void> => {
      const dealt = deal(index);
      const budgetMs = budgetFor(dealt.transport, dealt.fault === "slow" ? maxTotalTimeoutMs : options.timeoutMs);
      const exclusive = options.isolateDisruptive && FAULT_INFO[dealt.fault].disruptive;
      const release = await locks.get(dealt.transport)!.acquire(exclusive);
      const record = newRecord(index, dealt, options.retries, options.transientAttempts, budgetMs);
      const counter = new SettleCounter();
      records.push(record);
      counters.set(record, counter);
      try {
        await callInto(tk, `${dealt.transport}__${dealt.tool}`, record, counter, waitFor(budgetMs));
      } finally {
        release();
        if (++settledCount % 250 === 0) log(`${settledCount}/${options.calls} calls`);
      }
    };

    let next = 0;
    let settledCount = 0;
    const mainDone = new AbortController();
    const raceBudget = budgetFor("http", options.timeoutMs);
    const race = runRace(tk, { seed: options.seed, writes: options.raceWrites, idleMs, retries: options.retries, transientAttempts: options.transientAttempts, budgetMs: raceBudget, waitMs: waitFor(raceBudget), signal: mainDone.signal }, options.calls, counters);
    const main = Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (next < options.calls) await runOne(next++);
      }),
    ).catch((error: unknown) => {
      mainDone.abort();
      throw error;
    });
    const [, raced] = await Promise.all([main, race]);
    records.push(...raced);
    log(`${options.raceWrites} spaced writes behind the idle-closing proxy`);
    await awaitAllCallbacks();
    // A moment more: a late second settle of any call would show up in its counter.
    await sleep(300);
    for (const [record, counter] of counters) Object.assign(record, { starts: counter.starts, ends: counter.ends, errors: counter.errors });
    // Every call has settled: only each session's own GET stream may still be open on the server.
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
  await proxy?.close();
  await idle?.close();
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
    ...(http ? { openRequestsWhenIdle, openRequestsAfterClose, httpSessions: idle ? 2 : 1 } : {}),
    ...(idle ? { race: { idleMs, dropped: idle.dropped } } : {}),
    retryWaits,
    retries,
    reconnects,
    maxEventLoopDelayMs,
    durationMs: performance.now() - started,
  });
}

/** The default timeout's multiple of the stdio server's slowest start. */
const START_TIMEOUT_RATIO = 5;

/**
 * The calibration: the slowest of three starts of the stdio server (spawn, initialize, the
 * tool list) on this machine now, in milliseconds. A busy machine stretches them, and the
 * default timeout with them, so no call dealt a quick answer meets a real timeout.
 */
async function slowestStart(command: { command: string; args: string[] }): Promise<number> {
  let slowest = 0;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    const probe = await McpToolkit.connect({ servers: { probe: { transport: "stdio", ...command, env: { CHAOS_MIX: JSON.stringify({ ok: 1 }) } } } });
    slowest = Math.max(slowest, performance.now() - started);
    await probe.close();
  }
  return slowest;
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

