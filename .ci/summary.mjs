// Prints "N passed, M failed, K skipped" from a vitest JSON report.
import { readFileSync } from "node:fs";

const path = process.argv[2];
let report;
try {
  report = JSON.parse(readFileSync(path, "utf8"));
} catch (error) {
  console.log(`vitest wrote no report at ${path}: ${error.message}`);
  console.log("0 passed, 1 failed");
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
const failed = report.numFailedTests ?? 0;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
// A file that fails to load has no assertion results; count it as a failure.
const suiteErrors = (report.testResults ?? []).filter((r) => r.status === "failed" && (r.assertionResults ?? []).length === 0).length;
const line = `${passed} passed, ${failed + suiteErrors} failed${skipped ? `, ${skipped} skipped` : ""}`;
console.log(line);
process.exit(failed + suiteErrors > 0 || passed === 0 ? 1 : 0);
