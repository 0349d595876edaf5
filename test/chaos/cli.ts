/**
 * `npm run chaos -- --calls 2000 --seed 1 [--transports stdio,http] [--concurrency 8] [--timeout 2000] [--race-writes n]`
 * `npm run chaos -- --soak [--calls 50000] [--soak-transport memory|http]`
 * `npm run chaos -- --restart [--kinds a,b] [--faults kill,stop] [--downs 300,3000] [--callers 16] [--timeout 5000]`
 *   (rolling restarts of real servers under load; see test/restart/)
 * Exits non-zero when an invariant breaks.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { formatReport, runChaos, type DrivenTransport } from "./run.js";
import { formatSoak, runSoak } from "./soak.js";

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const value = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
};
const num = (name: string, fallback: number) => {
  const v = value(name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`--${name} expects a number, got ${v}`);
  return n;
};

if (flag("restart")) {
  const { restartCli } = await import("../restart/cli.js");
  process.exit(await restartCli(value));
}

if (flag("soak")) {
  // Heap is compared after forced GC, which needs --expose-gc: re-run under it when missing.
  if (typeof globalThis.gc !== "function") {
    const self = fileURLToPath(import.meta.url);
    const child = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", self, ...argv], { stdio: "inherit" });
    process.exit(child.status ?? 1);
  }
  const transport = (value("soak-transport") ?? "memory") as "memory" | "http";
  const report = await runSoak({ calls: num("calls", 50_000), seed: num("seed", 1), concurrency: num("concurrency", 8), transport, log: (l) => console.error(l) });
  console.log(formatSoak(report));
  process.exit(report.ok ? 0 : 1);
}

const transports = (value("transports") ?? "stdio,http").split(",").map((t) => t.trim()) as DrivenTransport[];
for (const t of transports) if (t !== "stdio" && t !== "http") throw new Error(`--transports: unknown transport ${t}`);
const report = await runChaos({
  calls: num("calls", 2000),
  seed: num("seed", 1),
  transports,
  concurrency: num("concurrency", 8),
  ...(value("timeout") !== undefined ? { timeoutMs: num("timeout", 2000) } : {}),
  ...(value("race-writes") !== undefined ? { raceWrites: num("race-writes", 0) } : {}),
  log: (l) => console.error(l),
});
console.log(formatReport(report));
process.exit(report.ok ? 0 : 1);
