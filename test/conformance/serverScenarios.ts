/**
 * `npm run conformance -- --server-scenarios`: the suite's resource and prompt scenarios. The
 * suite has no client scenario for either; they are server scenarios (`conformance server --url`),
 * so they run against the reference server of resourceServer.ts, built with the v2 SDK exactly as
 * they ask, the same server test/resources/conformanceServer.test.ts runs the toolkit against.
 * Which ones run is what the suite lists as required of a server at each revision
 * (`conformance list --requirements <revision>`), kept to those about resources and prompts:
 * `resources-*`, `prompts-*` and `sep-2164-resource-not-found`. Each runs alone at each revision
 * that requires it (2025-11-25 on a session, 2026-07-28 stateless), once more when it fails.
 * The table counts the suite's checks, its `wire-schema-valid` check among them (every message
 * the server sent, validated against that revision's schema), and its warnings (a SHOULD missed).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startConformanceResourceServer } from "./resourceServer.js";
import { readChecks, requirements, REVISIONS, root, SUITE, suiteArgs } from "./suite.js";

/** The server scenarios about resources and prompts. */
const RESOURCE_OR_PROMPT = /^(resources-|prompts-|sep-2164-resource-not-found$)/;

interface Result {
  scenario: string;
  revision: string;
  passed: number;
  failed: number;
  warnings: number;
  /** The ids of the checks that failed or warned, with the suite's message. */
  notes: string[];
  ok: boolean;
}

function run(url: string, scenario: string, revision: string): Promise<Result> {
  const out = mkdtempSync(join(tmpdir(), "conformance-server-"));
  const args = suiteArgs("server", "--url", url, "--scenario", scenario, "--spec-version", revision, "-o", out);
  return new Promise((resolve) => {
    const child = spawn("npx", args, { cwd: root, stdio: ["ignore", "ignore", "ignore"] });
    child.on("close", (code) => {
      const checks = readChecks(out);
      rmSync(out, { recursive: true, force: true });
      const count = (status: string) => checks.filter((c) => c.status === status);
      const notes = [...count("FAILURE"), ...count("WARNING")].map((c) => `${c.id}${c.errorMessage ? `: ${c.errorMessage}` : ""}`);
      const passed = count("SUCCESS").length;
      const failed = count("FAILURE").length;
      resolve({ scenario, revision, passed, failed, warnings: count("WARNING").length, notes, ok: code === 0 && failed === 0 && passed > 0 });
    });
  });
}

/** Runs the plan against a fresh reference server, prints the table; resolves the exit code. */
export async function runServerScenarios(only?: string): Promise<number> {
  const plan: [string, string][] = [];
  for (const revision of REVISIONS) for (const s of requirements(revision).server) if (RESOURCE_OR_PROMPT.test(s)) plan.push([s, revision]);
  const selected = plan.filter(([s]) => only === undefined || s === only);
  if (selected.length === 0) {
    console.error(`No resource or prompt server scenario named ${only}: they are ${[...new Set(plan.map(([s]) => s))].join(", ")}.`);
    return 2;
  }
  const server = await startConformanceResourceServer();
  const results: Result[] = [];
  try {
    console.log(`Against test/conformance/resourceServer.ts (@modelcontextprotocol/server 2.4, ${server.url.href}):\n`);
    console.log(`| scenario | revision | result | checks passed | checks failed | warnings |`);
    console.log(`|---|---|---|---:|---:|---:|`);
    for (const [scenario, revision] of selected) {
      const first = await run(server.url.href, scenario, revision);
      const r = first.ok ? first : await run(server.url.href, scenario, revision);
      results.push(r);
      const verdict = r.ok ? (first.ok ? "pass" : "pass (second run)") : "**fail**";
      console.log(`| ${scenario} | ${revision} | ${verdict} | ${r.passed} | ${r.failed} | ${r.warnings} |`);
    }
  } finally {
    await server.close();
  }
  for (const r of results) for (const note of r.notes) console.log(`- ${r.scenario} (${r.revision}): ${note}`);
  const passed = results.filter((r) => r.ok).length;
  console.log(`\n${SUITE}, ${new Date().toISOString().slice(0, 10)}: ${passed}/${results.length} resource and prompt server scenario runs passed.`);
  return passed === results.length ? 0 : 1;
}
