/**
 * An answer that arrived in time is not a timeout, even when the event loop reads it late.
 *
 * After the loop was held up (a long synchronous task, or a busy machine that kept the process
 * off the CPU), Node runs the timers that expired meanwhile before it reads the I/O that arrived
 * meanwhile. The attempt's timer used to win that race: the chaos suite on a loaded machine saw
 * calls whose server had answered in milliseconds settle as `request_timeout` (outcome unknown)
 * at 2,002 ms. Here the loop is blocked, in the phase where a stall lands (an I/O callback),
 * across the attempt's timeout while the server, in a process of its own, answers.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpToolkitConfig } from "../../src/index.js";
import { stdioFixtureCommand } from "../servers/stdio.js";
import { blockLoop } from "../support/blockLoop.js";

const TIMEOUT_MS = 200;

/** The chaos server over streamable HTTP in a child process, answering every call at once. */
async function httpServerProcess(): Promise<{ url: string; close(): Promise<void> }> {
  const entry = fileURLToPath(new URL("../servers/chaos/http-entry.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", entry], { env: { ...process.env, CHAOS_MIX: JSON.stringify({ ok: 1 }) }, stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.on("line", (line) => line.startsWith("listening ") && resolve(line.slice("listening ".length)));
    void exited.then(() => reject(new Error(`the HTTP server exited with code ${child.exitCode}`)));
  });
  return { url, close: async () => (lines.close(), child.stdin!.end(), await exited) };
}

async function answersThroughStalls(config: McpToolkitConfig, tool: string, args: (i: number) => Record<string, unknown>): Promise<string[]> {
  const toolkit = await McpToolkit.connect({ ...config, tools: { [tool]: { timeoutMs: TIMEOUT_MS } }, retry: { retries: 0 }, breaker: { enabled: false } });
  try {
    const call = (i: number) => toolkit.getTool(tool)!.invoke({ type: "tool_call", id: `c${i}`, name: tool, args: args(i) }) as Promise<ToolMessage>;
    // Calibration: a round trip on this machine now. The stall lasts the timeout and 20 round
    // trips more, so the answer is in by its end however loaded the machine is.
    const started = performance.now();
    expect((await call(-1)).status).toBe("success");
    const stallMs = TIMEOUT_MS + Math.max(600, 20 * (performance.now() - started));
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const reply = call(i);
      await blockLoop(stallMs);
      const message = await reply;
      outcomes.push(message.status === "success" ? "success" : (message.artifact as { reason: string }).reason);
    }
    return outcomes;
  } finally {
    await toolkit.close();
  }
}

describe("an answer that arrived while the event loop was blocked", () => {
  it("wins over the attempt's timer that expired in the same block, over stdio", async () => {
    const outcomes = await answersThroughStalls({ servers: { s: { transport: "stdio", ...stdioFixtureCommand() } } }, "echo", () => ({ text: "hi" }));
    expect(outcomes).toEqual(Array(6).fill("success"));
  }, 60_000);

  it("wins over the attempt's timer that expired in the same block, over streamable HTTP", async () => {
    const server = await httpServerProcess();
    try {
      const outcomes = await answersThroughStalls({ servers: { s: { transport: "http", url: server.url } } }, "read", (i) => ({ key: `k${i}` }));
      expect(outcomes).toEqual(Array(6).fill("success"));
    } finally {
      await server.close();
    }
  }, 60_000);

  it("does not let a progress read after the block move the total cap (resetTimeoutOnProgress with maxTotalTimeoutMs)", async () => {
    const toolkit = await McpToolkit.connect({
      servers: { s: { transport: "stdio", ...stdioFixtureCommand() } },
      tools: { slow: { timeoutMs: 600, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 900, retry: { retries: 0 } } },
      breaker: { enabled: false },
    });
    try {
      // The server reports progress every 20 ms: some is always waiting when the loop comes back.
      const reply = toolkit.getTool("slow")!.invoke({ type: "tool_call", id: "p", name: "slow", args: { ms: 20_000, progressEveryMs: 20 } }) as Promise<ToolMessage>;
      await new Promise((resolve) => setTimeout(resolve, 5));
      await blockLoop(1_500);
      const message = await reply;
      expect(message.artifact).toMatchObject({ reason: "request_timeout" });
      expect(message.content).toContain("maximum total time of 900 ms");
    } finally {
      await toolkit.close();
    }
  }, 60_000);
});
