/**
 * The bench server in a process of its own, so that what the bench measures in its own
 * process is the client side alone.
 *
 * `--stdio`: serves over stdin/stdout.
 * `--http`: prints `listening <url>`; then each stdin line `restart` forgets every session
 * and listens again on the same port, answered by `back`; the end of stdin ends the process.
 * `--protocol-errors`: serves the low-level server whose `raise` answers JSON-RPC errors
 * (`buildProtocolErrorServer`) instead of the bench server.
 * `--lookup`: serves the "Under faults" section's `lookup` tool (`buildLookupServer`) instead.
 */
import { createInterface } from "node:readline";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { BenchHttpServer } from "./http.js";
import { buildLookupServer } from "./lookup.js";
import { buildBenchServer, buildProtocolErrorServer } from "./tools.js";

const build = () =>
  process.argv.includes("--protocol-errors")
    ? buildProtocolErrorServer()
    : process.argv.includes("--lookup")
      ? buildLookupServer()
      : buildBenchServer(process.argv.includes("--http") ? "bench-http" : "bench-stdio");

if (process.argv.includes("--http")) {
  const http = new BenchHttpServer(build);
  await http.listen(0);
  process.stdout.write(`listening ${http.url.href}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    if (line.trim() !== "restart") return;
    void http
      .stop()
      .then(() => http.listen())
      .then(() => process.stdout.write("back\n"));
  });
  lines.on("close", () => void http.stop().finally(() => process.exit(0)));
} else {
  await build().connect(new StdioServerTransport());
}
