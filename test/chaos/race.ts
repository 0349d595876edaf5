/**
 * The keep-alive race: spaced writes through a TCP proxy that closes idle connections
 * (test/servers/proxy/idleProxy.ts, "crossing" mode, so every spaced call meets a connection the
 * proxy has just closed, the race's bad side made certain). Each write is dealt no other fault;
 * any failure is spurious, and a second run would be a double write.
 */
import type { McpToolkit } from "../../src/index.js";
import { RACE_PREFIX, unit } from "../servers/chaos/plan.js";
import { callInto, newRecord, SettleCounter } from "./calls.js";
import type { CallRecord } from "./report.js";
import { sleep } from "./support.js";

/** The toolkit's name for the server behind the idle-closing proxy. */
export const RACE_SERVER = "race";

export interface RaceOptions {
  seed: number;
  writes: number;
  /** The proxy's idle limit: each write waits a little longer than this after the last. */
  idleMs: number;
  retries: number;
  transientAttempts: number;
  /** Per-call budget, as for the other calls. */
  budgetMs: number;
  /** How long a call may take before it counts as unsettled. */
  waitMs: number;
  /** Stops the phase early (the main run failed). */
  signal?: AbortSignal;
}

/** Runs the writes one after another and returns their records and settle counters. */
export async function runRace(toolkit: McpToolkit, options: RaceOptions, firstIndex: number, counters: Map<CallRecord, SettleCounter>): Promise<CallRecord[]> {
  const records: CallRecord[] = [];
  for (let i = 0; i < options.writes && !options.signal?.aborted; i++) {
    const key = `${RACE_PREFIX}${i}`;
    // Past the idle limit by 50–300 ms: the connection is dead by the time the call is made.
    await sleep(options.idleMs + 50 + Math.round(250 * unit(options.seed, "race", key)));
    const record = newRecord(firstIndex + i, { key, transport: "http", tool: "write", fault: "keepalive_race" }, options.retries, options.transientAttempts, options.budgetMs);
    const counter = new SettleCounter();
    records.push(record);
    counters.set(record, counter);
    await callInto(toolkit, `${RACE_SERVER}__write`, record, counter, options.waitMs);
  }
  return records;
}
