/**
 * 4. Recovery: SIGKILL a stdio server's process, then call until a call succeeds again.
 * Ours reconnects by itself. The adapters restart the process (restart option on), but a
 * tool object keeps the client it was built with; that is measured as the brief asks
 * (the same tool object), and, for reference, with the tools fetched again per try.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { fmt, type SectionResult } from "../model.js";
import type { BenchContext } from "../context.js";
import type { Ours } from "../ours.js";
import { childrenWithRole, echoStdioCommand, roleEnv } from "../servers.js";
import { delay, median, pollUntil, rotate } from "../stats.js";

const args = { text: "hello" };
const POLL_MS = 10;

/** True when a call answered "hello"; any failure (returned or thrown) is false. */
async function succeeds(call: () => Promise<unknown>): Promise<boolean> {
  try {
    return (await call()) === "hello";
  } catch {
    return false;
  }
}

/** One subject's client while a trial runs. */
interface Running {
  /** Resolves once a call succeeds (the subject works before the kill). */
  ready: () => Promise<void>;
  /** One try after the kill: true when the call succeeded. */
  attempt: () => Promise<boolean>;
  /** Closes the client; returns how many server starts happened after close (adapters only). */
  close: () => Promise<number>;
}

interface Trial {
  name: string;
  role: string;
  /** A fresh client per trial, so one trial's aftermath cannot change the next. */
  start: () => Running;
}

/**
 * Kills the role's processes and times until `attempt` succeeds (undefined if it never did).
 * Every process with the role is killed, so the one serving is among them even when a
 * client has left a stray one behind; how many there were is reported.
 */
async function killAndTime(role: string, attempt: () => Promise<boolean>, deadlineMs: number): Promise<{ ms: number | undefined; killed: number }> {
  const pids = childrenWithRole(role);
  if (pids.length === 0) throw new Error(`No child process with role ${role}.`);
  for (const pid of pids) process.kill(pid, "SIGKILL");
  return { ms: await pollUntil(attempt, deadlineMs, POLL_MS), killed: pids.length };
}

/**
 * Kills the role's processes as they appear, until neither a live one nor a refused start
 * (a line in `stopFile`) has appeared for `quietMs`, bounded by `maxMs`. Returns the count of both.
 */
async function reap(role: string, stopFile: string, quietMs: number, maxMs: number): Promise<number> {
  let killed = 0;
  let refused = 0;
  let quietSince = performance.now();
  const t0 = performance.now();
  while (performance.now() - quietSince < quietMs && performance.now() - t0 < maxMs) {
    for (const pid of childrenWithRole(role)) {
      process.kill(pid, "SIGKILL");
      killed++;
      quietSince = performance.now();
    }
    const lines = readFileSync(stopFile, "utf8").split("\n").filter(Boolean).length;
    if (lines !== refused) {
      refused = lines;
      quietSince = performance.now();
    }
    await delay(25);
  }
  return killed + refused;
}

async function waitUntil(what: string, attempt: () => Promise<boolean>, ms: number): Promise<void> {
  if ((await pollUntil(attempt, ms, 20)) === undefined) throw new Error(`${what} did not work within ${ms} ms.`);
}

const READY_MS = 10_000;
const RESTART = { enabled: true, maxAttempts: 3, delayMs: 100 };

function startOurs(ours: Ours, role: string): Running {
  const connecting = ours.McpToolkit.connect({ servers: { s: { transport: "stdio", ...echoStdioCommand(), env: roleEnv(role) } } });
  const call = async () => succeeds(async () => (await connecting).getTool("echo")!.invoke(args));
  return {
    ready: () => waitUntil("Our tool", call, READY_MS),
    attempt: call,
    close: async () => {
      await (await connecting.catch(() => undefined))?.close();
      return 0;
    },
  };
}

let stopFiles = 0;

function startAdapters(role: string, keepTool: boolean, quietMs: number): Running {
  // The adapters' restart hook also fires on the close that close() itself causes, and
  // starts the server again; a stop file makes those late starts exit at once, so they end.
  const stopFile = join(tmpdir(), `bench-stop-${process.pid}-${++stopFiles}`);
  const client = new MultiServerMCPClient({
    mcpServers: { s: { transport: "stdio", ...echoStdioCommand(), env: { ...roleEnv(role), BENCH_STOP_FILE: stopFile }, stderr: "ignore", restart: RESTART } },
  });
  const echo = async (): Promise<StructuredToolInterface> => {
    const tool = (await client.getTools()).find((t) => t.name === "echo");
    if (!tool) throw new Error("The adapters list no echo tool.");
    return tool;
  };
  let kept: StructuredToolInterface | undefined;
  return {
    ready: async () => {
      await waitUntil("The adapters' tool", () => succeeds(async () => (await echo()).invoke(args)), READY_MS);
      kept = await echo();
    },
    attempt: () => succeeds(async () => (keepTool ? kept! : await echo()).invoke(args)),
    close: async () => {
      writeFileSync(stopFile, "");
      try {
        await client.close();
        return await reap(role, stopFile, quietMs, 20_000);
      } finally {
        rmSync(stopFile, { force: true });
      }
    },
  };
}

export async function recovery({ plan, ours }: BenchContext): Promise<SectionResult> {
  const quietMs = plan.quick ? 1500 : 2500;
  const trials: Trial[] = [
    { name: "ours (automatic reconnect)", role: "bench-recovery-ours", start: () => startOurs(ours, "bench-recovery-ours") },
    { name: "adapters, same tool object (restart on)", role: "bench-recovery-adapters", start: () => startAdapters("bench-recovery-adapters", true, quietMs) },
    { name: "adapters, getTools() again per try (reference)", role: "bench-recovery-adapters", start: () => startAdapters("bench-recovery-adapters", false, quietMs) },
  ];

  const times = new Map<string, (number | undefined)[]>(trials.map((t) => [t.name, []]));
  const strays = new Map<string, number>(trials.map((t) => [t.name, 0]));
  const notReady = new Map<string, number>(trials.map((t) => [t.name, 0]));
  let restartsAfterClose = 0;
  for (let round = 0; round < plan.recovery.rounds; round++) {
    for (const trial of rotate(trials, round)) {
      const running = trial.start();
      try {
        await running.ready();
        const { ms, killed } = await killAndTime(trial.role, running.attempt, plan.recovery.deadlineMs);
        times.get(trial.name)!.push(ms);
        strays.set(trial.name, strays.get(trial.name)! + killed - 1);
      } catch {
        notReady.set(trial.name, notReady.get(trial.name)! + 1);
      } finally {
        restartsAfterClose += await running.close();
      }
    }
  }

  const deadline = plan.recovery.deadlineMs;
  const rows = trials.map((t) => {
    const all = times.get(t.name)!;
    const ok = all.filter((x): x is number => x !== undefined);
    const each = all.map((x) => (x === undefined ? "—" : fmt(x, 0))).join(", ");
    const failedStarts = notReady.get(t.name)! > 0 ? ` (+${notReady.get(t.name)} not ready within ${READY_MS} ms)` : "";
    return [t.name, ok.length > 0 ? fmt(median(ok), 0) : `never (> ${deadline} ms)`, `${ok.length}/${all.length}${failedStarts}`, each, String(strays.get(t.name))];
  });
  const oursOk = times.get(trials[0]!.name)!.filter((x): x is number => x !== undefined);
  const refetch = times.get(trials[2]!.name)!.filter((x): x is number => x !== undefined);
  return {
    title: "4. Recovery after the stdio server is killed",
    method:
      `${plan.recovery.rounds} round(s); each trial starts a fresh client, waits until echo works, SIGKILLs the server process (found by its BENCH_ROLE env in /proc) and calls echo every ${POLL_MS} ms until one succeeds, ` +
      `for at most ${deadline} ms. The server is bench/echo-server.mjs (plain JavaScript, so start-up is not a TypeScript compile). ` +
      `Ours: default reconnect. Adapters: restart ${JSON.stringify(RESTART)}. Trial order rotates per round.`,
    tables: [{ headers: ["subject", "median ms to first success", "recovered", "each trial, ms", "stray processes killed"], rows }],
    ratios: oursOk.length > 0 && refetch.length > 0 ? [{ label: "recovery: ours/adapters (refetch)", value: median(oursOk) / median(refetch) }] : [],
    goals: [],
    notes: [
      "The adapters' tool closes over the client it was built with; their restart makes a new client, so the old tool object keeps failing (`Not connected`). Only tools fetched again from `getTools()` see the new process.",
      "Calling `getTools()` while the adapters restart the process can start a second one that no client owns (counted as stray processes above).",
      `The adapters' restart hook also fires on the close that \`close()\` causes: after \`close()\` they started the server ${restartsAfterClose} more time(s) in all. ` +
        "The bench makes those starts exit at once (a stop file the bench server checks), otherwise they would outlive the client.",
    ],
  };
}
