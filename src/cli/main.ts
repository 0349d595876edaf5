/**
 * `langchain-mcp-errors doctor [config] [--json] [--timeout <ms>]`: connects to every server of
 * a configuration file and says what works and what to fix. Exit code 1 when a server failed
 * or the file has a mistake doctor read past, 2 when the command line or the file is wrong.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { nearest } from "../config/fields.js";
import { DEFAULT_DOCTOR_TIMEOUT_MS, runDoctor } from "./doctor.js";
import { formatReport } from "./format.js";

/** Files looked for, in this order, when no path is given. */
export const CANDIDATES = ["mcp.json", ".vscode/mcp.json", ".cursor/mcp.json", ".mcp.json"];

export const USAGE = `Usage: langchain-mcp-errors doctor [config.json] [--json] [--timeout <ms>]

Connects to every server in the file (Claude Desktop, Cursor, VS Code, @langchain/mcp-adapters
or langchain-mcp-errors format), makes no tool call, and prints one block per server: what
works, and for a failure what the model would read and what you can do about it.

  config.json     the file to check; without one, the first of ${CANDIDATES.join(", ")}
  --json          print the report as JSON, for programs
  --timeout <ms>  how long each server may take to connect, unless its entry sets
                  connectTimeoutMs (default ${DEFAULT_DOCTOR_TIMEOUT_MS})
  -h, --help      print this help

Exit code: 0 when every server connected, 1 when one failed or the file has a mistake (a
misspelt key: named in the report, every other server still checked), 2 when the command line
is wrong or the file cannot be read as a configuration (the message names the field).`;

/** Where the command writes; the process's own streams unless a test gives others. */
export interface CliOutput {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Runs the command line `argv` (without `node` and the script) and resolves to the exit code. */
export async function main(argv: string[], out: CliOutput = process): Promise<number> {
  const fail = (problem: string) => {
    out.stderr.write(`${problem}\n\n${USAGE}\n`);
    return 2;
  };
  let parsed: { values: { help?: boolean; json?: boolean; timeout?: string }; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { help: { type: "boolean", short: "h" }, json: { type: "boolean" }, timeout: { type: "string" } } });
  } catch (error) {
    // Node's message goes on to explain `--`; its first sentence names the option.
    return fail(`${(error as Error).message.split(". ")[0]}.`);
  }
  const { values, positionals } = parsed;
  const [command, ...paths] = positionals;
  if (values.help || command === undefined || command === "help") {
    out.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command !== "doctor") return fail(`Unknown command '${command}'${nearest(command, ["doctor"]) ? "; did you mean 'doctor'?" : "."}`);
  if (paths.length > 1) return fail(`doctor checks one file; got ${paths.length}: ${paths.join(", ")}.`);
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout >= 1)) return fail(`--timeout takes a whole number of milliseconds ≥ 1; got '${values.timeout}'.`);
  const path = paths[0] ?? CANDIDATES.find((c) => existsSync(c));
  if (!path) return fail(`No configuration file given, and none of ${CANDIDATES.join(", ")} exists here.`);
  try {
    const report = await runDoctor(path, timeout === undefined ? {} : { connectTimeoutMs: timeout });
    out.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
    return report.ok ? 0 : 1;
  } catch (error) {
    // A file that cannot be read or is not a valid configuration: the message names the field.
    out.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
}
