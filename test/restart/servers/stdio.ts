/**
 * The restart suite's stdio server: the v1 SDK over stdio, with the tools of toolsV1.ts, that
 * crash-loops while it is "down": every start before the time in the RESTART_CONTROL file
 * (`{"downUntil": <epoch ms>}`) prints why to stderr and exits with code 3, as a server whose
 * dependency is not back yet does. A start that serves writes its pid to RESTART_PIDFILE (the
 * harness kills that process). SIGTERM is a graceful stop: close, exit 0.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { buildRestartServerV1 } from "./toolsV1.js";

const control = process.env.RESTART_CONTROL;
const downUntil = control && existsSync(control) ? (JSON.parse(readFileSync(control, "utf8")) as { downUntil?: number }).downUntil ?? 0 : 0;
if (Date.now() < downUntil) {
  process.stderr.write(`boot: upstream database not ready (retry in ${downUntil - Date.now()} ms)\n`);
  process.exit(3);
}
if (process.env.RESTART_PIDFILE) writeFileSync(process.env.RESTART_PIDFILE, String(process.pid));
const server = buildRestartServerV1(process.env.RESTART_LEDGER);
await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
process.on("SIGTERM", () => {
  void server.close().finally(() => process.exit(0));
});
