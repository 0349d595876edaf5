/**
 * The v2 fixture as a stdio server process, served by `serveStdio`: it answers 2026-07-28
 * openings and 2025-era ones alike, unless FIXTURE_LEGACY=reject. FIXTURE_LOG names a file that
 * gets one line per tool execution (it survives a crash).
 * FIXTURE_SERVER picks the server: the fixture (default), `protocol` (buildV2ProtocolErrorServer,
 * JSON-RPC errors on demand) or `outputs` (buildV2OutputSchemaServer, broken structured output).
 */
import { appendFileSync } from "node:fs";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { buildV2OutputSchemaServer, buildV2ProtocolErrorServer, buildV2Server, newV2State } from "./fixture.js";

const state = newV2State();
const log = process.env.FIXTURE_LOG;
const onCall = log ? (tool: string) => appendFileSync(log, `${tool}\n`) : undefined;
const build = {
  protocol: () => buildV2ProtocolErrorServer(),
  outputs: () => buildV2OutputSchemaServer(state),
  fixture: () => buildV2Server(state, { onCrash: (code) => process.exit(code), ...(onCall ? { onCall } : {}) }),
}[process.env.FIXTURE_SERVER ?? "fixture"];
if (!build) throw new Error(`unknown FIXTURE_SERVER ${process.env.FIXTURE_SERVER}`);
serveStdio(build, process.env.FIXTURE_LEGACY === "reject" ? { legacy: "reject" } : {});
