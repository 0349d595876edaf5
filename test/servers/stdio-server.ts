/**
 * The fixture server over stdio, as a real child process.
 * Env: FIXTURE_LOG, a file that gets one line per tool execution (it survives a crash);
 * FIXTURE_STDERR, a line written to stderr at start; FIXTURE_STUBBORN=1 keeps the process alive
 * after stdin closes and ignores SIGTERM, so only SIGKILL ends it; FIXTURE_HOLD_STDOUT (below). `transfer` and `lookup` exit the process
 * on their first execution (once per FIXTURE_LOG, so a restarted process answers).
 */
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { buildFixtureServer, newState } from "./fixture.js";

const log = process.env.FIXTURE_LOG;
// FIXTURE_HOLD_STDOUT=<ms>: a helper process shares this one's stdout and lives that long, as a
// wrapper's child or a forked worker may: when this process dies, its pipe to the client stays open.
if (process.env.FIXTURE_HOLD_STDOUT) {
  spawn(process.execPath, ["-e", `setTimeout(() => {}, ${Number(process.env.FIXTURE_HOLD_STDOUT)})`], { stdio: ["ignore", "inherit", "ignore"] }).unref();
}
if (process.env.FIXTURE_STDERR) process.stderr.write(`${process.env.FIXTURE_STDERR}\n`);
if (process.env.FIXTURE_STUBBORN === "1") {
  process.on("SIGTERM", () => process.stderr.write("ignoring SIGTERM\n"));
  setInterval(() => undefined, 60_000);
}

const crash = (code: number) => {
  process.stderr.write("fatal: database connection lost\n");
  process.exit(code);
};
const server = buildFixtureServer(newState(), {
  name: "stdio-fixture",
  onCrash: crash,
  // Drop only once per log file, so the restarted process lets the retry through.
  onDrop: () => {
    const marker = log ? `${log}.dropped` : undefined;
    if (marker && existsSync(marker)) return;
    if (marker) writeFileSync(marker, "");
    crash(1);
  },
  onCall: (tool) => {
    if (log) appendFileSync(log, `${tool}\n`);
  },
});
await server.connect(new StdioServerTransport());
