/**
 * The v2 fixture as a stdio server process, served by `serveStdio`: it answers 2026-07-28
 * openings and 2025-era ones alike, unless FIXTURE_LEGACY=reject.
 */
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { buildV2Server, newV2State } from "./fixture.js";

const state = newV2State();
serveStdio(() => buildV2Server(state, { onCrash: (code) => process.exit(code) }), process.env.FIXTURE_LEGACY === "reject" ? { legacy: "reject" } : {});
