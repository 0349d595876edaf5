/**
 * A stdio server whose process exited before it answered `initialize`: no call was made, and the
 * same command will fail the same way until a person fixes it (a misspelt npx package, a script
 * path that does not exist). Named for what it is, with the cause read from its stderr, rather
 * than a connection "closed during the call" that may pass if tried again.
 */
import { normalize, type ExitInfo } from "../../errors/normalize.js";
import type { ClientRequests } from "../call/ClientRequests.js";
import { McpToolError } from "../../errors/McpToolError.js";
import type { ServerConfig } from "../../config/index.js";
import { blameConnect } from "./connectBlame.js";

/** The process's own words for the causes a person can fix, each turned into what to do. */
const CAUSES: Array<{ test: RegExp; say: (match: RegExpMatchArray) => string }> = [
  // npm/npx: "npm error 404 Not Found - GET https://registry.npmjs.org/@scope%2fname" (npm 7+; "npm ERR!" before).
  { test: /npm (?:error|ERR!) 404 Not Found - GET \S+?\/((?:@[^/\s%]+(?:%2f|\/))?[^/\s]+)\s*(?:-|$)/im, say: (m) => `npm has no package '${decodeURIComponent(m[1]!)}' (E404): check the package name in the server's args.` },
  { test: /npm (?:error|ERR!) code E404/i, say: () => "npm could not find the package it was asked to run (E404): check the package name in the server's args." },
  // Node: "Error: Cannot find module '/path/server.js'" for the entry script.
  { test: /Cannot find module '([^']+)'/, say: (m) => `the script '${m[1]}' does not exist: check the path in the server's args (a relative path is read from its cwd).` },
  // Python: "can't open file '/path/server.py': [Errno 2] No such file or directory".
  { test: /can't open file '([^']+)'/, say: (m) => `the script '${m[1]}' does not exist: check the path in the server's args.` },
  { test: /No module named '?([\w.]+)'?/, say: (m) => `the Python module '${m[1]}' is not installed where the server runs.` },
];

/**
 * The error of a connect whose stdio server exited before answering `initialize`; `exit` is what
 * its transport saw. Permanent when the command never started (or its words name a cause a person
 * must fix); transient when the same command ran before (`restarted`): a crash loop, a dependency
 * not ready yet, which the next try may find up.
 */
export function startFailed(serverName: string, exit: ExitInfo, cause: unknown, restarted = false): McpToolError {
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.exitCode ?? "unknown"}`;
  const stderr = exit.stderrTail?.trim() ?? "";
  const known = CAUSES.map(({ test, say }) => {
    const match = stderr.match(test);
    return match ? say(match) : undefined;
  }).find((said) => said !== undefined);
  const lastLine = stderr.split("\n").filter((line) => line.trim() !== "").at(-1);
  const why = known ?? (lastLine ? `its last words on stderr: ${lastLine.trim()}` : "it wrote nothing on stderr.");
  const transient = restarted && known === undefined;
  const again = transient ? " It started before with the same command: it is tried again." : "";
  const said = /[.!?)]$/.test(why) ? why : `${why}.`;
  return McpToolError.of("server_start_failed", `Server '${serverName}' ${how} before it answered initialize: ${said}${again}`, {
    serverName,
    transient,
    data: { exitCode: exit.exitCode ?? null, signal: exit.signal ?? null, stderr },
    cause,
  });
}

/**
 * Why a connect failed, classified once, with what its own client saw: the newest answer's facts
 * over HTTP, the process's exit over stdio. A stdio process that died on its own during its
 * connect (not stopped by our timeout) never got a call: it failed to start. An HTTP server's
 * refusal is told with its name, its URL and the field to check (connectBlame.ts).
 */
export function connectFailure(serverName: string, error: unknown, requests: ClientRequests | undefined, facts: { config: ServerConfig; lastExit: ExitInfo | undefined; restarted: boolean }): McpToolError {
  const response = requests?.takeNewest();
  const url = "url" in facts.config ? String(facts.config.url) : undefined;
  const exited = "command" in facts.config ? requests?.exit : undefined;
  const seen = normalize(error, { serverName, exit: exited ?? facts.lastExit, notSent: true, ...(url ? { url } : {}), ...(response ? { response } : {}) });
  return exited && seen.reason === "connection_closed" ? startFailed(serverName, exited, error, facts.restarted) : blameConnect(serverName, facts.config, seen, response);
}
