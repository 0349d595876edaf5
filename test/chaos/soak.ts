/**
 * The leak check: tens of thousands of calls through one idempotent tool, with the heap
 * (after forced GC) and the active handles measured after a warm-up and at the end.
 * Run with `npm run chaos -- --soak`; not part of the unit tests.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import type { ToolMessage } from "@langchain/core/messages";
import { McpToolkit, type McpToolErrorJSON, type ServerConfig } from "../../src/index.js";
import { Ledger } from "../servers/chaos/ledger.js";
import type { FaultMix } from "../servers/chaos/plan.js";
import { buildChaosServer, serveChaos } from "../servers/chaos/server.js";
import { activeResources, multisetExcess, sleep } from "./support.js";

export interface SoakOptions {
  /** @default 50000 */
  calls?: number;
  seed?: number;
  /** @default 8 */
  concurrency?: number;
  /** @default "memory" */
  transport?: "memory" | "http";
  /** Calls before the first measurement, so lazy caches and JIT settle. @default 2000 */
  warmup?: number;
  /** @default SOAK_MIX */
  mix?: FaultMix;
  /** Heap growth that fails the run, in MB. @default 5 */
  maxGrowthMb?: number;
  log?: (line: string) => void;
}

export interface SoakReport {
  calls: number;
  transport: "memory" | "http";
  durationMs: number;
  heapStartMb: number;
  heapEndMb: number;
  growthMb: number;
  /** Heap after GC at each checkpoint, in MB. */
  samples: { calls: number; heapMb: number }[];
  handlesStart: string[];
  handlesEnd: string[];
  newHandles: string[];
  leftAfterClose: string[];
  outcomes: Map<string, number>;
  crashes: string[];
  ok: boolean;
  maxGrowthMb: number;
}

/** Mostly successes, with every cheap failure path (retries, timeouts, isError, bad results). */
export const SOAK_MIX: FaultMix = {
  ok: 80,
  is_error: 4,
  protocol_internal: 4,
  protocol_rate_limited: 2,
  protocol_invalid_params: 2,
  malformed: 3,
  leaky_error: 3,
  hang: 1,
  huge_error: 0.2,
};

const MB = 1024 * 1024;

/** Starts test/servers/chaos/http-entry.ts as a child process and waits for its URL. */
async function startServerProcess(seed: number, mix: FaultMix): Promise<{ url: string; close: () => Promise<void> }> {
  const entry = fileURLToPath(new URL("../servers/chaos/http-entry.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    env: { ...process.env, CHAOS_SEED: String(seed), CHAOS_MIX: JSON.stringify(mix) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.on("line", (line) => line.startsWith("listening ") && resolve(line.slice("listening ".length)));
    child.once("error", reject);
    void exited.then(() => reject(new Error(`the chaos HTTP server exited with code ${child.exitCode}`)));
  });
  return {
    url,
    close: async () => {
      lines.close();
      child.stdin!.end();
      await exited;
    },
  };
}

async function forceGc(): Promise<number> {
  const gc = globalThis.gc;
  if (typeof gc !== "function") throw new Error("run with --expose-gc");
  for (let i = 0; i < 4; i++) {
    gc();
    await sleep(30);
  }
  return process.memoryUsage().heapUsed / MB;
}

export async function runSoak(input: SoakOptions = {}): Promise<SoakReport> {
  const calls = input.calls ?? 50_000;
  const seed = input.seed ?? 1;
  const concurrency = input.concurrency ?? 8;
  const transport = input.transport ?? "memory";
  const warmup = input.warmup ?? 2_000;
  const maxGrowthMb = input.maxGrowthMb ?? 5;
  const log = input.log ?? (() => {});
  const mix = input.mix ?? SOAK_MIX;
  const crashes: string[] = [];
  const onRejection = (reason: unknown) => crashes.push(`unhandledRejection: ${String(reason)}`);
  const onException = (error: unknown) => crashes.push(`uncaughtException: ${String(error)}`);
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
  const baseline = activeResources();

  const ledger = new Ledger();
  let client: Client | undefined;
  let closeServer = async () => {};
  let server: ServerConfig;
  if (transport === "http") {
    // The server runs in its own process: in this one its memory would count as the client's.
    const child = await startServerProcess(seed, mix);
    server = { transport: "http", url: child.url, trustAnnotations: true };
    closeServer = child.close;
  } else {
    const chaos = buildChaosServer({ seed, transport: "memory", ledger, mix });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await serveChaos(chaos, serverSide);
    client = new Client({ name: "soak", version: "1.0.0" });
    await client.connect(clientSide);
    server = { client, trustAnnotations: true };
    closeServer = () => chaos.close();
  }
  const toolkit = await McpToolkit.connect({
    servers: { soak: server },
    timeoutMs: 300,
    retry: { retries: 2, minTimeout: 5, maxTimeout: 20 },
    breaker: { enabled: false },
  });
  const tool = toolkit.getTool("read")!;
  const outcomes = new Map<string, number>();
  let issued = 0;

  const batch = async (count: number) => {
    const end = issued + count;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (issued < end) {
          const key = `soak-${issued++}`;
          let outcome: string;
          try {
            const message = (await tool.invoke({ type: "tool_call", id: key, name: "read", args: { key } })) as ToolMessage;
            outcome = message.status === "success" ? "ok" : ((message.artifact as McpToolErrorJSON).reason ?? "?");
          } catch (error) {
            outcome = `threw:${String(error)}`;
          }
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
          ledger.forget(key);
        }
      }),
    );
    await awaitAllCallbacks();
  };

  // Over HTTP the fetch pool keeps idle sockets for a few seconds (keep-alive): compare handles
  // only once those have timed out, so the count says what stays, not what is cached.
  const idle = () => (transport === "http" ? sleep(6_000) : Promise.resolve());
  const started = performance.now();
  await batch(warmup);
  await idle();
  const heapStartMb = await forceGc();
  const handlesStart = process.getActiveResourcesInfo();
  const startCounts = activeResources();
  const samples = [{ calls: 0, heapMb: heapStartMb }];
  log(`soak: warm-up done (${warmup} calls), heap ${heapStartMb.toFixed(2)} MB`);
  const step = Math.max(1, Math.ceil(calls / 5));
  for (let done = 0; done < calls; ) {
    const n = Math.min(step, calls - done);
    await batch(n);
    done += n;
    const heapMb = await forceGc();
    samples.push({ calls: done, heapMb });
    log(`soak: ${done}/${calls} calls, heap ${heapMb.toFixed(2)} MB, ${(performance.now() - started) / 1000 | 0} s`);
  }
  const heapEndMb = samples[samples.length - 1]!.heapMb;
  await idle();
  const handlesEnd = process.getActiveResourcesInfo();
  const newHandles = multisetExcess(activeResources(), startCounts);
  const durationMs = performance.now() - started;

  await toolkit.close();
  await client?.close();
  await closeServer();
  let leftAfterClose = multisetExcess(activeResources(), baseline);
  for (let i = 0; i < 30 && leftAfterClose.length > 0; i++) {
    await sleep(100);
    leftAfterClose = multisetExcess(activeResources(), baseline);
  }
  process.off("unhandledRejection", onRejection);
  process.off("uncaughtException", onException);

  const growthMb = heapEndMb - heapStartMb;
  const threw = [...outcomes.keys()].some((k) => k.startsWith("threw:"));
  return {
    calls,
    transport,
    durationMs,
    heapStartMb,
    heapEndMb,
    growthMb,
    samples,
    handlesStart,
    handlesEnd,
    newHandles,
    leftAfterClose,
    outcomes,
    crashes,
    maxGrowthMb,
    ok: growthMb < maxGrowthMb && newHandles.length === 0 && leftAfterClose.length === 0 && crashes.length === 0 && !threw,
  };
}

export function formatSoak(r: SoakReport): string {
  const lines = [
    `soak: ${r.calls} calls through one tool over ${r.transport} in ${(r.durationMs / 1000).toFixed(1)} s (${Math.round(r.calls / (r.durationMs / 1000))} calls/s)`,
    `heap after GC: ${r.heapStartMb.toFixed(2)} MB → ${r.heapEndMb.toFixed(2)} MB, growth ${r.growthMb >= 0 ? "+" : ""}${r.growthMb.toFixed(2)} MB (goal < ${r.maxGrowthMb} MB)`,
    `heap samples: ${r.samples.map((s) => `${s.calls}: ${s.heapMb.toFixed(2)}`).join(", ")}`,
    `active handles: start [${r.handlesStart.join(", ")}], end [${r.handlesEnd.join(", ")}], new: ${r.newHandles.length === 0 ? "none" : r.newHandles.join(", ")}`,
    `after close: ${r.leftAfterClose.length === 0 ? "nothing left" : r.leftAfterClose.join(", ")}`,
    `outcomes: ${[...r.outcomes.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(", ")}`,
    `crashes: ${r.crashes.length === 0 ? "none" : r.crashes.join("; ")}`,
    r.ok ? "soak: PASS" : "soak: FAIL",
  ];
  return lines.join("\n");
}
