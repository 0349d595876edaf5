/**
 * The conformance suite as the runners use it: its pinned version, what it lists for a revision
 * (`conformance list --requirements <revision>`), and the checks a run wrote. Shared by the
 * client scenarios (run.ts) and the resource and prompt server scenarios (serverScenarios.ts).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const SUITE = "@modelcontextprotocol/conformance@0.2.0-alpha.12";
export const root = fileURLToPath(new URL("../..", import.meta.url));

/** The revisions whose requirements are scored; the newest also runs what was added after it shipped. */
export const REVISIONS = ["2025-11-25", "2026-07-28"];

/** `npx` arguments that run the suite's CLI (it needs Node 22) with `args`. */
export function suiteArgs(...args: string[]): string[] {
  return ["-y", "-p", "node@22", "-p", SUITE, "conformance", ...args];
}

/** What the suite's `--requirements <revision>` lists. */
export interface Requirements {
  /** Server scenarios required at this revision. */
  server: string[];
  /** Client scenarios required at this revision: scored. */
  required: string[];
  /** Client scenarios run and reported, never scored, by the suite's group (extension, added-after-release, pending). */
  unscored: Record<string, string[]>;
}

/**
 * The suite's own list (`conformance list --requirements <revision>`), so a run cannot drift from
 * what the suite requires: its "Server scenarios" and "Client scenarios" sections, and the
 * `[client]` entries of what it runs unscored.
 */
export function requirements(revision: string): Requirements {
  const listed = spawnSync("npx", suiteArgs("list", "--requirements", revision), { cwd: root, encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`conformance list --requirements ${revision} failed (${listed.status}): ${listed.stderr}`);
  const result: Requirements = { server: [], required: [], unscored: {} };
  let section = "";
  let group = "";
  for (const line of listed.stdout.split("\n")) {
    if (/^\S/.test(line)) section = line;
    const groupHeading = /^ {2}([\w-]+) \(\d+\):$/.exec(line);
    if (groupHeading) group = groupHeading[1]!;
    const required = /^ {2}- (\S+)$/.exec(line);
    if (required && section.startsWith("Client scenarios")) result.required.push(required[1]!);
    if (required && section.startsWith("Server scenarios")) result.server.push(required[1]!);
    const unscored = /^ {4}- (\S+) \[client\]$/.exec(line);
    if (unscored && section.startsWith("Run and reported")) (result.unscored[group] ??= []).push(unscored[1]!);
  }
  if (result.required.length === 0 || result.server.length === 0) throw new Error(`conformance list --requirements ${revision} named no client or no server scenario:\n${listed.stdout}`);
  return result;
}

/** One check the suite wrote. */
export interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** Every check the suite wrote under `dir` (it nests a scenario's results by its name). */
export function readChecks(dir: string): Check[] {
  const checks: Check[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) checks.push(...readChecks(path));
    else if (entry === "checks.json") checks.push(...(JSON.parse(readFileSync(path, "utf8")) as Check[]));
  }
  return checks;
}
