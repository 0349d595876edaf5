/**
 * `npm run chaos -- --restart [--kinds v1-sessionful,stdio-crashloop] [--faults kill,stop]
 * [--downs 300,3000] [--scenarios kill/300,stop/3000] [--callers 16] [--timeout 5000] [--breaker off] [--half-open ms] [--floor-trials 5] [--json file]`:
 * the restart suite's table. The toolkit runs with the defaults users get, except the per-attempt
 * timeout (5 s, so a hang shows without waiting 30 s); `--breaker off` or `--half-open` show the
 * other properties when the default breaker's 30 s lockout hides them.
 * Exits non-zero when a property breaks.
 */
import { writeFileSync } from "node:fs";
import { KIND_NAMES, type KindName } from "./kinds.js";
import { measure } from "./measure.js";
import type { Fault } from "./processes.js";
import { runRestarts, type Scenario } from "./run.js";
import { formatProblems, formatTable, verdicts } from "./table.js";

export async function restartCli(value: (name: string) => string | undefined): Promise<number> {
  const list = (name: string) => value(name)?.split(",").map((s) => s.trim()).filter(Boolean);
  const kinds = (list("kinds") ?? KIND_NAMES) as KindName[];
  for (const k of kinds) if (!KIND_NAMES.includes(k)) throw new Error(`--kinds: unknown kind ${k} (one of ${KIND_NAMES.join(", ")})`);
  const faults = (list("faults") ?? ["kill", "stop"]) as Fault[];
  for (const f of faults) if (f !== "kill" && f !== "stop") throw new Error(`--faults: unknown fault ${f} (kill or stop)`);
  const downs = (list("downs") ?? ["300", "3000"]).map(Number);
  // `--scenarios kill/300,stop/3000` names each restart; otherwise every fault with every downtime.
  const named = list("scenarios")?.map((s) => {
    const [fault, downMs] = s.split("/");
    if ((fault !== "kill" && fault !== "stop") || !Number.isFinite(Number(downMs))) throw new Error(`--scenarios: ${s} is not <kill|stop>/<ms>`);
    return { fault, downMs: Number(downMs) } as Scenario;
  });
  const scenarios: Scenario[] = named ?? downs.flatMap((downMs) => faults.map((fault) => ({ fault, downMs })));
  const number = (name: string) => (value(name) === undefined ? undefined : Number(value(name)));
  const breaker = {
    ...(value("breaker") === "off" ? { enabled: false } : {}),
    ...(number("half-open") !== undefined ? { halfOpenAfterMs: number("half-open")! } : {}),
  };
  const results = await runRestarts({
    ...(Object.keys(breaker).length ? { toolkit: { breaker } } : {}),
    kinds,
    scenarios,
    ...(number("callers") !== undefined ? { callers: number("callers")! } : {}),
    ...(number("timeout") !== undefined ? { timeoutMs: number("timeout")! } : {}),
    floorTrials: number("floor-trials") ?? 5,
    log: (line) => console.error(line),
  });
  const metrics = results.map(measure);
  console.log(formatTable(metrics));
  console.log();
  console.log(formatProblems(metrics));
  const json = value("json");
  if (json) writeFileSync(json, JSON.stringify(results, (_k, v: unknown) => (v instanceof Map ? Object.fromEntries(v) : v), 2));
  return metrics.every((m) => Object.values(verdicts(m)).every(Boolean)) ? 0 : 1;
}
