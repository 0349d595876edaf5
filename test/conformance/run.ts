/**
 * `npm run conformance`: runs the MCP conformance suite's client scenarios against our toolkit
 * (test/conformance/client.ts) and prints one line per scenario. The suite needs Node 22, so it
 * runs through `npx -p node@22`; the version of the suite is pinned here.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const SUITE = "@modelcontextprotocol/conformance@0.1.16";
/** The client scenarios that need no OAuth server of ours (the auth/* ones test an OAuth client). */
const SCENARIOS = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"];
const root = fileURLToPath(new URL("../..", import.meta.url));

function run(scenario: string): Promise<{ scenario: string; passed: number; total: number; ok: boolean }> {
  const args = ["-y", "-p", "node@22", "-p", SUITE, "conformance", "client", "--command", "node --import tsx test/conformance/client.ts", "--scenario", scenario];
  return new Promise((resolve) => {
    const child = spawn("npx", args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("close", (code) => {
      const counts = /Passed: (\d+)\/(\d+)/.exec(out);
      resolve({ scenario, passed: Number(counts?.[1] ?? 0), total: Number(counts?.[2] ?? 0), ok: code === 0 && /OVERALL: PASSED/.test(out) });
    });
  });
}

const results = [];
for (const scenario of SCENARIOS) {
  const result = await run(scenario);
  results.push(result);
  console.log(`${result.ok ? "PASS" : "FAIL"}  ${scenario}: ${result.passed}/${result.total} checks`);
}
console.log(`${SUITE}, ${new Date().toISOString().slice(0, 10)}: ${results.filter((r) => r.ok).length}/${results.length} scenarios passed`);
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
