/**
 * `npm run conformance`: runs the MCP conformance suite's client scenarios against our toolkit
 * (test/conformance/client.ts) and prints a table: one row per scenario and protocol revision,
 * with its checks passed and failed. The suite needs Node 22, so it runs through
 * `npx -p node@22`; its version is pinned here.
 *
 * Each scenario runs alone (the suite's own `--requirements` runs them all at once, and on a
 * small machine the clients then time out), at each revision that requires it; one that fails
 * runs once more, and the table says so when the second run passed. The 2025
 * revisions open a session with `initialize`, 2026-07-28 is stateless, and a scenario passes or
 * fails on each wire separately. `-- --scenario <name>` runs one scenario (at each of its revisions).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SUITE = "@modelcontextprotocol/conformance@0.2.0-alpha.12";
const root = fileURLToPath(new URL("../..", import.meta.url));

/** What each revision requires of a client (`conformance list --requirements <revision>`), then what it runs unscored. */
const REQUIRED: Record<string, string[]> = {
  "2025-11-25": [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    ...authScenarios(),
  ],
  "2026-07-28": [
    "tools_call",
    "request-metadata",
    ...authScenarios(),
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
  ],
};
/** Run and shown, never counted: extensions are optional (and run off the spec timeline). */
const EXTENSIONS = ["auth/client-credentials-jwt", "auth/client-credentials-basic", "auth/enterprise-managed-authorization", "auth/dpop", "auth/dpop-nonce", "auth/wif-jwt-bearer"];
/** Added after both revisions shipped: run at the newest, not counted. */
const ADDED_AFTER_RELEASE = ["json-schema-2020-12-preservation"];

function authScenarios(): string[] {
  const metadata = ["metadata-default", "metadata-var1", "metadata-var2", "metadata-var3", "basic-cimd"];
  const scope = ["scope-from-www-authenticate", "scope-from-scopes-supported", "scope-omitted-when-undefined", "scope-step-up", "scope-retry-limit"];
  const token = ["token-endpoint-auth-basic", "token-endpoint-auth-post", "token-endpoint-auth-none", "pre-registration"];
  return [...metadata, ...scope, ...token].map((s) => `auth/${s}`);
}

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
  const args = ["-y", "-p", "node@22", "-p", SUITE, "conformance", "client", "--command", command, "--scenario", scenario, ...version, "-o", out];
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

/** Every check the suite wrote under `dir` (it nests a scenario's results by its name). */
function readChecks(dir: string): { id: string; status: string }[] {
  const checks: { id: string; status: string }[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) checks.push(...readChecks(path));
    else if (entry === "checks.json") checks.push(...(JSON.parse(readFileSync(path, "utf8")) as { id: string; status: string }[]));
  }
  return checks;
}

const only = process.argv.includes("--scenario") ? process.argv[process.argv.indexOf("--scenario") + 1] : undefined;
const plan: [string, string, boolean][] = [];
for (const [revision, scenarios] of Object.entries(REQUIRED)) for (const s of scenarios) plan.push([s, revision, true]);
for (const s of ADDED_AFTER_RELEASE) plan.push([s, "2026-07-28", false]);
for (const s of EXTENSIONS) plan.push([s, "extension", false]);
const selected = plan.filter(([s]) => only === undefined || s === only);

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
process.exitCode = scored.every((r) => r.ok) ? 0 : 1;
