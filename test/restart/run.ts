/**
 * The restart harness: for each server kind, 16 callers (by default) keep calling a read and a
 * non-idempotent write through McpToolkit while the server is killed (-9) or stopped and comes
 * back after a set time. Every call is recorded with its attempts (through `retry` events, told
 * apart per call by an AsyncLocalStorage around the invoke) and the server's ledger says which
 * writes ran. measure.ts turns the records into the suite's properties; table.ts prints them.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpToolkit, type McpTool, type McpToolError, type McpToolkitConfig } from "../../src/index.js";
import { readExecutions } from "./ledger.js";
import { bundleServers, KIND_NAMES, startKind, type Bundles, type KindName } from "./kinds.js";
import { measureFloor } from "./floor.js";
import type { Fault, FaultTimes } from "./processes.js";

export interface Scenario {
  fault: Fault;
  /** How long after the fault the server can answer again, ms. */
  downMs: number;
}

/** Every fault, each with the server back after 0.3 s and after 3 s. */
export const ALL_SCENARIOS: readonly Scenario[] = [
  { fault: "kill", downMs: 300 },
  { fault: "stop", downMs: 300 },
  { fault: "kill", downMs: 3000 },
  { fault: "stop", downMs: 3000 },
];

export interface RestartOptions {
  /** @default every kind */
  kinds?: readonly KindName[];
  /** The restarts dealt to each kind, in order. @default ALL_SCENARIOS */
  scenarios?: readonly Scenario[];
  /** Callers calling at once. @default 16 */
  callers?: number;
  /** The toolkit's per-attempt timeout, ms: how long a hang lasts. @default 5000 */
  timeoutMs?: number;
  /** The share of calls that are writes. @default 0.4 */
  writeShare?: number;
  /** How long the load runs on after the first success that follows a restart, ms. @default 500 */
  afterRecoveryMs?: number;
  /** How long to wait for a first success after a restart before moving on, ms. @default 8000 */
  recoveryCapMs?: number;
  /** After the run, restarts timed with a plain SDK client connecting the moment the server listens (the floor of first success). @default 0 */
  floorTrials?: number;
  /** More toolkit settings (breaker, retry, …), over the defaults users get. */
  toolkit?: Omit<McpToolkitConfig, "servers">;
  log?: (line: string) => void;
}

/** An attempt that failed and was retried. */
export interface AttemptFailure {
  at: number;
  attempt: number;
  delayMs: number;
  reason: string;
  outcome: string;
  message: string;
  status?: number;
  kind: string;
}

export interface CallRecord {
  id: string;
  op: "read" | "write";
  /** How long the tool itself works on the server, ms. */
  workMs: number;
  start: number;
  end?: number;
  ok?: boolean;
  error?: { reason: string; outcome: string; transient: boolean; message: string; attempts: number; status?: number; kind: string };
  retries: AttemptFailure[];
}

export interface RestartRecord extends Scenario, FaultTimes {}

/** The circuit opening (with the reason of the failure that opened it) or closing. */
export interface BreakerChange {
  at: number;
  type: "circuit_open" | "circuit_close";
  reason?: string;
}

export interface KindResult {
  name: KindName;
  transport: string;
  timeoutMs: number;
  restarts: RestartRecord[];
  calls: CallRecord[];
  /** Executions per write id, from the server's ledger. */
  executions: Map<string, number>;
  /** Calls still unsettled when the harness stopped waiting. */
  unsettled: number;
  /** How long `toolkit.close()` took, ms. */
  closeMs: number;
  /** The breaker's changes, in order. */
  circuit: BreakerChange[];
  /** First success of a plain SDK client that connects the moment the server listens, ms, per trial (see floor.ts). */
  floorMs: number[];
  /** Unhandled rejections, uncaught exceptions, and errors of the harness itself. */
  crashes: string[];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function until(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!done()) {
    if (performance.now() >= deadline) return false;
    await sleep(10);
  }
  return true;
}

function errorFields(error: McpToolError) {
  return { reason: error.reason, outcome: error.outcome, message: error.message, kind: error.kind, ...(error.status !== undefined ? { status: error.status } : {}) };
}

export async function runRestarts(options: RestartOptions = {}): Promise<KindResult[]> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-restart-"));
  const results: KindResult[] = [];
  try {
    const bundles = await bundleServers(dir);
    for (const name of options.kinds ?? KIND_NAMES) results.push(await runKind(name, options, dir, bundles));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

async function runKind(name: KindName, options: RestartOptions, dir: string, bundles: Bundles): Promise<KindResult> {
  const log = options.log ?? (() => {});
  const timeoutMs = options.timeoutMs ?? 5000;
  const callers = options.callers ?? 16;
  const writeShare = options.writeShare ?? 0.4;
  const ledger = join(dir, `${name}.ledger`);
  const calls: CallRecord[] = [];
  const restarts: RestartRecord[] = [];
  const crashes: string[] = [];
  const onRejection = (reason: unknown) => crashes.push(`unhandledRejection: ${String((reason as Error)?.stack ?? reason)}`);
  const onException = (error: unknown) => crashes.push(`uncaughtException: ${String((error as Error)?.stack ?? error)}`);
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
  const current = new AsyncLocalStorage<CallRecord>();
  let unsettled = 0;
  let closeMs = Number.NaN;
  let floorMs: number[] = [];
  const circuit: BreakerChange[] = [];
  const started = performance.now();
  const kind = await startKind(name, dir, ledger, bundles);
  let toolkit: McpToolkit | undefined;
  try {
    const config: McpToolkitConfig = {
      ...options.toolkit,
      servers: { s: kind.server },
      timeoutMs,
      tools: { ...kind.tools, ...options.toolkit?.tools },
      onEvent: (event) => {
        options.toolkit?.onEvent?.(event);
        if (event.type === "circuit_open" || event.type === "circuit_close") circuit.push({ at: performance.now(), type: event.type, ...(event.type === "circuit_open" && event.error ? { reason: event.error.reason } : {}) });
        if (event.type !== "retry") return;
        current.getStore()?.retries.push({ at: performance.now(), attempt: event.attempt, delayMs: event.delayMs, ...errorFields(event.error) });
      },
    };
    // The first connect is not under test: a loaded machine may lose it, so it gets three tries.
    for (let attempt = 1; !toolkit; attempt++) {
      toolkit = await McpToolkit.connect(config).catch((error: unknown) => {
        if (attempt >= 3) throw error;
        log(`${name}: connect failed (${String((error as Error)?.message ?? error)}), trying again`);
        return undefined;
      });
    }
    const tools = { read: toolkit.getTool(kind.read.tool), write: toolkit.getTool(kind.write.tool) };
    if (!tools.read || !tools.write) throw new Error(`${name}: tools ${kind.read.tool} and ${kind.write.tool} are not offered (${toolkit.getTools().map((t) => t.name).join(", ")})`);
    log(`${name}: connected in ${Math.round(performance.now() - started)} ms`);

    let stopping = false;
    let seq = 0;
    const call = async (tool: McpTool, record: CallRecord, args: Record<string, unknown>) => {
      try {
        const message = await tool.invoke({ id: record.id, name: tool.name, args, type: "tool_call" });
        record.ok = message.status !== "error";
        if (!record.ok) {
          const error = message.artifact as McpToolError;
          record.error = { ...errorFields(error), transient: error.transient, attempts: error.attempts ?? 1 };
        }
      } catch (error) {
        // A tool call must never throw into the agent: record it as a crash.
        crashes.push(`${record.id} threw: ${String((error as Error)?.stack ?? error)}`);
        record.ok = false;
        record.error = { reason: "thrown", outcome: "unknown", transient: false, message: String(error), attempts: 0, kind: "client" };
      }
      record.end = performance.now();
    };
    const caller = async () => {
      while (!stopping) {
        const op = Math.random() < writeShare ? "write" : "read";
        const id = `${name}-${++seq}`;
        // Long enough that a fault finds calls in flight, short enough to keep the load steady.
        const ms = 20 + Math.round(Math.random() * 130);
        const record: CallRecord = { id, op, workMs: kind[op].instant ? 0 : ms, start: performance.now(), retries: [] };
        calls.push(record);
        await current.run(record, () => call(tools[op]!, record, kind[op].args(id, ms)));
        await sleep(10 + Math.random() * 20);
      }
    };
    // The next server process loads while the load warms up (and, later, once the server is back
    // and answering), so its start costs the run no time and the measured moments no CPU.
    const prepare = () => {
      const p = kind.prepare();
      p.catch(() => undefined);
      return p;
    };
    let preparing = prepare();
    const running = Promise.all(Array.from({ length: callers }, () => caller()));
    const successesAfter = (t: number) => calls.filter((c) => c.ok && c.end! > t).length;
    await until(() => successesAfter(0) >= callers, 10_000);

    const scenarios = options.scenarios ?? ALL_SCENARIOS;
    for (const [i, scenario] of scenarios.entries()) {
      await preparing;
      // A moment of steady load, so calls are in flight at the fault.
      await sleep(200 + Math.random() * 200);
      const times = await kind.fault(scenario.fault, scenario.downMs);
      restarts.push({ ...scenario, ...times });
      await sleep(times.upAt - performance.now());
      const recovered = await until(() => successesAfter(times.upAt) > 0, options.recoveryCapMs ?? 8000);
      log(`${name}: ${scenario.fault} with the server back after ${scenario.downMs} ms: ${recovered ? "recovered" : "no success yet"} (at ${Math.round(performance.now() - started)} ms)`);
      if (i + 1 < scenarios.length) preparing = prepare();
      await sleep(options.afterRecoveryMs ?? 500);
    }
    stopping = true;
    log(`${name}: stopping the callers at ${Math.round(performance.now() - started)} ms`);
    // A call may retry (3 attempts by default), wait on backoff and reconnect: allow for all of it.
    const settled = await until(() => calls.every((c) => c.end !== undefined), 3 * timeoutMs + 10_000);
    if (!settled) unsettled = calls.filter((c) => c.end === undefined).length;
    else await running;
  } catch (error) {
    crashes.push(`harness: ${String((error as Error)?.stack ?? error)}`);
  } finally {
    const closing = performance.now();
    await toolkit?.close();
    closeMs = performance.now() - closing;
    if (options.floorTrials) floorMs = await measureFloor(kind, options.floorTrials).catch((error: unknown) => {
      crashes.push(`floor: ${String((error as Error)?.stack ?? error)}`);
      return [];
    });
    await kind.close();
    process.off("unhandledRejection", onRejection);
    process.off("uncaughtException", onException);
  }
  log(`${name}: ${calls.length} calls, ${restarts.length} restarts in ${Math.round((performance.now() - started) / 1000)} s`);
  return { name, transport: kind.transport, timeoutMs, restarts, calls, executions: readExecutions(ledger), unsettled, closeMs, floorMs, circuit, crashes };
}
