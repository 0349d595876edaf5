/**
 * One outage of server-everything over streamable HTTP, met by parallel callers with the
 * toolkit's default settings (issue 33, item 5): `callers` idempotent reads are in flight when
 * the server is killed (-9); once its process is gone, `callers` more calls are made while
 * nothing listens, half of them reads and half non-idempotent writes (`echo`, counted in the
 * ledger), so none of those was sent; the server listens again on the same port `downMs` after
 * the kill. Every call is recorded with its end and error; the ledger says which writes ran.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpToolkit, type McpEvent, type McpTool, type McpToolError } from "../../src/index.js";
import { startKind, type Bundles } from "./kinds.js";
import { readExecutions } from "./ledger.js";
import type { FaultTimes } from "./processes.js";

export interface OutageCall {
  id: string;
  /** In flight at the kill (`inflight`), or made while nothing listened (`unsent`). */
  wave: "inflight" | "unsent";
  op: "read" | "write";
  start: number;
  end?: number;
  ok?: boolean;
  error?: { reason: string; attempts: number; message: string };
}

export interface OutageResult extends FaultTimes {
  downMs: number;
  calls: OutageCall[];
  /** Executions per write id, from the server's ledger (every outage so far). */
  executions: Map<string, number>;
  /** The events of this outage's calls. */
  events: McpEvent[];
}

export interface OutageRun {
  /** Deals one outage: the kill, the calls, the server back after `downMs`; resolves once every call settled. */
  outage(downMs: number): Promise<OutageResult>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** server-everything over streamable HTTP and a toolkit with the defaults users get, ready for outages. */
export async function startOutages(callers = 16): Promise<OutageRun> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-outage-"));
  const ledger = join(dir, "everything.ledger");
  // server-everything is a package of its own: no bundled entry of the suite is needed.
  const kind = await startKind("everything-http", dir, ledger, {} as Bundles);
  const events: McpEvent[] = [];
  let toolkit: McpToolkit | undefined;
  const close = async () => {
    await toolkit?.close();
    await kind.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // The defaults users get: only the kind's marking of `echo` as a write (not idempotent).
    toolkit = await McpToolkit.connect({ servers: { s: kind.server }, ...(kind.tools ? { tools: kind.tools } : {}), onEvent: (e) => events.push(e) });
  } catch (error) {
    await close();
    throw error;
  }
  const read = toolkit.getTool(kind.read.tool)!;
  const write = toolkit.getTool(kind.write.tool)!;
  let round = 0;
  const call = async (calls: OutageCall[], tool: McpTool, record: OutageCall, args: Record<string, unknown>) => {
    calls.push(record);
    const message = await tool.invoke({ id: record.id, name: tool.name, args, type: "tool_call" });
    record.end = performance.now();
    record.ok = message.status !== "error";
    if (!record.ok) {
      const error = message.artifact as McpToolError;
      record.error = { reason: error.reason, attempts: error.attempts ?? 1, message: error.message };
    }
  };
  const outage = async (downMs: number): Promise<OutageResult> => {
    round++;
    const warm: OutageCall[] = [];
    await call(warm, read, { id: `r${round}-warm`, wave: "inflight", op: "read", start: performance.now() }, kind.read.args("warm", 10));
    if (!warm[0]!.ok) throw new Error(`the call before outage ${round} failed: ${warm[0]!.error?.message}`);
    await kind.prepare();
    const firstEvent = events.length;
    const calls: OutageCall[] = [];
    const running: Promise<void>[] = [];
    // Reads of a second each: in flight at the kill.
    for (let i = 0; i < callers; i++) {
      const id = `r${round}-a${i}`;
      running.push(call(calls, read, { id, wave: "inflight", op: "read", start: performance.now() }, kind.read.args(id, 1000)));
    }
    await sleep(200);
    // Made once the process is gone: none of them can have been sent.
    const unsent = () => {
      for (let i = 0; i < callers; i++) {
        const op = i % 2 === 0 ? "read" : "write";
        const id = `r${round}-b${i}`;
        running.push(call(calls, op === "read" ? read : write, { id, wave: "unsent", op, start: performance.now() }, kind[op].args(id, 50)));
      }
    };
    const times = await kind.fault("kill", downMs, unsent);
    await Promise.all(running);
    return { downMs, ...times, calls, executions: readExecutions(ledger), events: events.slice(firstEvent) };
  };
  return { outage, close };
}
