/**
 * `npm run conformance`: runs the MCP conformance suite's client scenarios against our toolkit
 * (test/conformance/client.ts) and prints a table: one row per scenario and protocol revision,
 * with its checks passed and failed. The suite needs Node 22, so it runs through
 * `npx -p node@22`; its version is pinned here.
 *
 * What runs is what the suite lists (`conformance list --requirements <revision>`) for a client.
 * Each scenario runs alone (the suite's own `--requirements` runs them all at once, and on a
 * small machine the clients then time out), at each revision that requires it; one that fails
 * runs once more, and the table says so when the second run passed. The 2025
 * revisions open a session with `initialize`, 2026-07-28 is stateless, and a scenario passes or
 * fails on each wire separately. `-- --scenario <name>` runs one scenario (at each of its revisions).
 * The exit code is 0 only when every required run passed (2 when the name matches no scenario).
 * `-- --server-scenarios` runs the suite's resource and prompt scenarios instead, which are server
 * scenarios, against the reference server of resourceServer.ts (see serverScenarios.ts).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readChecks, requirements, REVISIONS, root, SUITE, suiteArgs } from "./suite.js";

interface Result {
  scenario: string;
  revision: string;
  scored: boolean;
  passed: number;
  failed: number;
  /** The ids of the checks that failed. */
  failures: string[];
  ok: boolean;
}

function run(scenario: string, revision: string, scored: boolean): Promise<Result> {
  const out = mkdtempSync(join(tmpdir(), "conformance-"));
  const command = "node --import tsx test/conformance/client.ts";
  const version = revision === "extension" ? [] : ["--spec-version", revision];
  const args = suiteArgs("client", "--command", command, "--scenario", scenario, ...version, "-o", out);
  return new Promise((resolve) => {
    const child = spawn("npx", args, { cwd: root, stdio: ["ignore", "ignore", "ignore"] });
    child.on("close", (code) => {
      const checks = readChecks(out);
      rmSync(out, { recursive: true, force: true });
      const failures = checks.filter((c) => c.status === "FAILURE").map((c) => c.id);
      const passed = checks.filter((c) => c.status === "SUCCESS").length;
      resolve({ scenario, revision, scored, passed, failed: failures.length, failures, ok: code === 0 && failures.length === 0 && passed > 0 });
    });
  });
}

const only = process.argv.includes("--scenario") ? process.argv[process.argv.indexOf("--scenario") + 1] : undefined;

/** Every client scenario at each revision that requires it, in a table; resolves the exit code. */
async function runClientScenarios(): Promise<number> {
  const plan: [string, string, boolean][] = [];
  const listed = REVISIONS.map((revision) => ({ revision, ...requirements(revision) }));
  for (const { revision, required } of listed) for (const s of required) plan.push([s, revision, true]);
  const newest = listed.at(-1)!;
  // Unscored: an extension is optional and off the spec timeline, so it runs without a revision;
  // one added after a revision shipped (or pending) runs at the newest, whose wire it checks.
  const unscored = new Map<string, string>();
  for (const { unscored: groups } of listed) for (const [group, names] of Object.entries(groups)) for (const s of names) unscored.set(s, group === "extension" ? "extension" : newest.revision);
  for (const [s, revision] of unscored) plan.push([s, revision, false]);
  const selected = plan.filter(([s]) => only === undefined || s === only);
  if (selected.length === 0) {
    // A misspelt scenario must not read as a clean run.
    console.error(`No scenario named ${only}: the client scenarios are ${[...new Set(plan.map(([s]) => s))].join(", ")}.`);
    return 2;
  }

  const results: Result[] = [];
  console.log(`| scenario | revision | result | checks passed | checks failed |`);
  console.log(`|---|---|---|---:|---:|`);
  for (const [scenario, revision, scored] of selected) {
    // A scenario that failed runs once more: several of them time their client, and this machine is shared.
    const first = await run(scenario, revision, scored);
    const r = first.ok ? first : await run(scenario, revision, scored);
    results.push(r);
    const failed = `**fail**${r.failures.length ? ` (${r.failures.join(", ")})` : ""}`;
    const verdict = r.ok ? (first.ok ? "pass" : "pass (second run)") : failed;
    console.log(`| ${scenario}${scored ? "" : " (not scored)"} | ${revision} | ${verdict} | ${r.passed} | ${r.failed} |`);
  }
  const scored = results.filter((r) => r.scored);
  console.log(`\n${SUITE}, ${new Date().toISOString().slice(0, 10)}: ${scored.filter((r) => r.ok).length}/${scored.length} required scenario runs passed; not scored: ${results.filter((r) => !r.scored && r.ok).length}/${results.filter((r) => !r.scored).length}.`);
  return scored.every((r) => r.ok) ? 0 : 1;
}

// `-- --server-scenarios`: the resource and prompt server scenarios against the reference server (serverScenarios.ts).
process.exitCode = process.argv.includes("--server-scenarios") ? await (await import("./serverScenarios.js")).runServerScenarios(only) : await runClientScenarios();
