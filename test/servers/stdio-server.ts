/**
 * The fixture server over stdio, as a real child process.
 * Env: FIXTURE_LOG, a file that gets one line per tool execution (it survives a crash);
 * FIXTURE_STDERR, a line written to stderr at start.
 */
import { appendFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { buildFixtureServer, newState } from "./fixture.js";

const log = process.env.FIXTURE_LOG;
if (process.env.FIXTURE_STDERR) process.stderr.write(`${process.env.FIXTURE_STDERR}\n`);

const crash = (code: number) => {
  process.stderr.write("fatal: database connection lost\n");
  process.exit(code);
};
const server = buildFixtureServer(newState(), {
  name: "stdio-fixture",
  onCrash: crash,
  onDrop: () => crash(1),
  onCall: (tool) => {
    if (log) appendFileSync(log, `${tool}\n`);
  },
});
await server.connect(new StdioServerTransport());
