// Prints "N passed, M failed, K skipped" from vitest JSON reports, each given as "report.json:run.log".
// vitest's JSON report leaves out unhandled errors (they fail the run, not a test): they are read
// from the run's own output ("Vitest caught N unhandled errors") and counted as failures.
import { readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
let skipped = 0;
const names = [];
for (const arg of process.argv.slice(2)) {
  const [path, log] = arg.split(":");
  let report;
  try {
    report = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    console.log(`vitest wrote no report at ${path}: ${error.message}`);
    failed += 1;
    continue;
  }
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const file of report.testResults ?? []) {
    const where = String(file.name ?? "").replace(`${process.cwd()}/`, "");
    const assertions = file.assertionResults ?? [];
    // A file that fails to load has no assertion results; count it as a failure.
    if (file.status === "failed" && assertions.length === 0) {
      failed += 1;
      names.push(`${where}: the file failed to load`);
    }
    for (const a of assertions) if (a.status === "failed") names.push(`${where} > ${a.fullName ?? a.title}`);
  }
  if (log) {
    const text = readFileSync(log, "utf8").replace(/\x1b\[[0-9;]*m/g, "");
    const caught = text.match(/Vitest caught (\d+) unhandled errors?/);
    if (caught) failed += Number(caught[1]);
  }
}
// The names first, so a red run says which tests without a scroll through the log.
for (const name of names) console.log(`failed: ${name}`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
