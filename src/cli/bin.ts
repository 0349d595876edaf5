#!/usr/bin/env node
/**
 * `npx langchain-mcp-errors doctor [config] [--json]`: connects to every server of a
 * configuration file and says what works and what to fix. Exit code 1 when a server failed.
 */
import { existsSync } from "node:fs";
import { runDoctor } from "./doctor.js";
import { formatReport } from "./format.js";

/** Files looked for, in this order, when no path is given. */
const CANDIDATES = ["mcp.json", ".vscode/mcp.json", ".cursor/mcp.json", ".mcp.json"];

const USAGE = `Usage: langchain-mcp-errors doctor [config.json] [--json] [--timeout <ms>]

Connects to every server in the file (Claude Desktop, Cursor, VS Code, @langchain/mcp-adapters
or langchain-mcp-errors format), makes no tool call, and prints one block per server.
Without a path it reads the first of: ${CANDIDATES.join(", ")}.`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== "doctor") {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined || command === "--help" || command === "-h" ? 0 : 2;
  }
  const json = rest.includes("--json");
  const at = rest.indexOf("--timeout");
  const timeout = at >= 0 ? Number(rest[at + 1]) : undefined;
  const path = rest.find((a, i) => !a.startsWith("--") && (at < 0 || i !== at + 1)) ?? CANDIDATES.find((c) => existsSync(c));
  if (!path) {
    process.stderr.write(`No configuration file given, and none of ${CANDIDATES.join(", ")} exists here.\n\n${USAGE}\n`);
    return 2;
  }
  try {
    const report = await runDoctor(path, timeout !== undefined && Number.isFinite(timeout) ? { connectTimeoutMs: timeout } : {});
    process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
    return report.ok ? 0 : 1;
  } catch (error) {
    // A file that cannot be read or is not a valid configuration: the message names the field.
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exitCode = 2;
  },
);
