/**
 * Runs test/runtimes/agent.mjs in a runtime (node, bun, deno) against servers this process
 * started on 127.0.0.1, and reads what it printed. The same plan runs in Node too, so a suite
 * asserts that another runtime gives what Node gives.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export type Runtime = "node" | "bun" | "deno";

const BIN = fileURLToPath(new URL("../../node_modules/.bin/", import.meta.url));
const AGENT = fileURLToPath(new URL("./agent.mjs", import.meta.url));

function command(runtime: Runtime): [string, string[]] {
  if (runtime === "node") return [process.execPath, [AGENT]];
  if (runtime === "bun") return [`${BIN}bun`, [AGENT]];
  // No prompts and no update check: the run is a test, not a session.
  return [`${BIN}deno`, ["run", "-A", "--no-prompt", AGENT]];
}

/**
 * Why a runtime cannot run here (its binary is missing or does not start), or `undefined`
 * when it can. CI installs bun and deno from npm with `npm ci`.
 */
export function cannotStart(runtime: Runtime): string | undefined {
  const [bin] = command(runtime);
  if (!existsSync(bin)) return `${runtime}: ${bin} is missing (npm ci installs it)`;
  const probe = spawnSync(bin, ["--version"], { encoding: "utf8", timeout: 30_000 });
  if (probe.status !== 0) return `${runtime}: ${bin} --version failed (${probe.error?.message ?? probe.stderr.trim().split("\n")[0] ?? `exit ${String(probe.status)}`})`;
  return undefined;
}

export interface AgentPlan {
  /** McpToolkit.connect's configuration, JSON only (onEvent is the agent's). */
  config: Record<string, unknown>;
  steps?: { tool: string; args: Record<string, unknown>; wait?: string }[];
}

export type Line = Record<string, unknown>;

/**
 * Runs the plan in `runtime`, calling `at(label)` for each step with a `wait` before the step
 * runs. Resolves with every line the agent printed, the waits left out.
 */
export function runAgent(runtime: Runtime, plan: AgentPlan, at: (label: string) => Promise<void> | void = () => undefined): Promise<Line[]> {
  const [bin, args] = command(runtime);
  const child = spawn(bin, args, { env: { ...process.env, RUNTIME_PLAN: JSON.stringify(plan), NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" }, stdio: ["pipe", "pipe", "pipe"] });
  const lines: Line[] = [];
  let pending = "";
  let stderr = "";
  let chain = Promise.resolve();
  child.stderr.on("data", (chunk) => (stderr += String(chunk)));
  child.stdout.on("data", (chunk) => {
    pending += String(chunk);
    let nl: number;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const text = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (!text.startsWith("{")) continue;
      const line = JSON.parse(text) as Line;
      if (typeof line.wait === "string") {
        const label = line.wait;
        chain = chain.then(async () => {
          await at(label);
          child.stdin.write("go\n");
        });
      } else lines.push(line);
    }
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      chain.then(
        () => (code === 0 && lines.some((l) => "events" in l || "connect" in l) ? resolve(lines) : reject(new Error(`${runtime} exited ${String(code)}:\n${JSON.stringify(lines)}\n${stderr}`))),
        reject,
      );
    });
  });
}
