/**
 * A new user's first ten minutes, as the README tells them: build the package as npm would
 * publish it, pack it, install the tarball into an empty project with the README's install
 * command, then run the README's quick start (its `server.mjs` and `agent.ts`, as written) and
 * `npx langchain-mcp-errors doctor` there.
 *
 * The install works from npm's cache: the peers are pinned to the versions this repository
 * installed, so `npm ci` has already fetched their tarballs (anything missing, such as package
 * metadata a lock file install skips, comes from the npm registry). The quick start needs no
 * remote piece: its server is a local stdio process and its model is scripted. It runs under
 * this repository's tsx (what the quick start's `npx tsx agent.ts` does once tsx is installed).
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quickstartBlock, quickstartSetup } from "./docs/readmeBlocks.js";

const exec = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));
const tmpRoot = join(root, "test", ".tmp");
const readme = await readFile(join(root, "README.md"), "utf8");
let pkg = "";
let app = "";

/** What npm publishes of the manifest: everything but the development-only fields (no scripts, so packing runs nothing). */
const PUBLISHED = ["name", "version", "description", "license", "type", "engines", "main", "module", "types", "typesVersions", "bin", "exports", "files", "sideEffects", "dependencies", "peerDependencies", "peerDependenciesMeta"];

/** The first fenced block of `lang` under the README heading `heading`. */
function readmeBlock(heading: string, lang: string): string {
  const section = readme.split(/^## /m).find((s) => s.startsWith(`${heading}\n`));
  const block = section?.match(new RegExp("```" + lang + "\\n([\\s\\S]*?)```"))?.[1];
  if (!block) throw new Error(`no ${lang} block under the README's "${heading}"`);
  return block;
}

/** npm (or npx) as a user runs it: none of the variables of the `npm test` that may have started this run. */
function npm(args: string[], cwd: string, timeout: number, command: "npm" | "npx" = "npm") {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_(package|lifecycle|config_local_prefix)/i.test(k) && k !== "INIT_CWD"));
  return exec(command, args, { cwd, timeout, env });
}

async function installedVersion(name: string): Promise<string> {
  return (JSON.parse(await readFile(join(root, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
}

/** A stdio MCP server for doctor to check, written as a user would, with the v1 SDK. */
const SERVER = `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
const server = new McpServer({ name: "todo-files", version: "1.0.0" });
server.registerTool("find_todos", { description: "Lists the TODO comments in the folder.", annotations: { readOnlyHint: true } }, async () => ({
  content: [{ type: "text", text: "src/app.ts:3: TODO: handle the timeout" }],
}));
await server.connect(new StdioServerTransport());
`;

describe("installed from its packed tarball into an empty project", () => {
  beforeAll(async () => {
    await mkdir(tmpRoot, { recursive: true });
    pkg = await mkdtemp(join(tmpRoot, "install-"));
    await exec("npx", ["tsup", "--no-dts", "--silent", "--out-dir", join(pkg, "dist")], { cwd: root, timeout: 60_000 });
    const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as Record<string, unknown>;
    await writeFile(join(pkg, "package.json"), JSON.stringify(Object.fromEntries(PUBLISHED.filter((k) => k in manifest).map((k) => [k, manifest[k]]))));
    await copyFile(join(root, "README.md"), join(pkg, "README.md"));

    // Outside this repository, so that nothing resolves through its node_modules.
    app = await mkdtemp(join(tmpdir(), "mcp-app-"));
    const packed = await npm(["pack", "--ignore-scripts", "--json", "--pack-destination", app], pkg, 60_000);
    const tarball = (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename;
    await writeFile(join(app, "package.json"), JSON.stringify({ name: "my-agent", private: true, type: "module" }));
    await writeFile(join(app, "todo-server.mjs"), SERVER);

    const command = readmeBlock("Add it to your project", "bash").trim();
    expect(command).toBe("npm install langchain-mcp-errors @langchain/core langchain");
    // The quick start installs the same packages and the MCP SDK its server is written with.
    const quickstart = quickstartSetup().split("\n").find((l) => l.startsWith(`${command} `));
    expect(quickstart, "the quick start's npm install line").toBeDefined();
    const specs = await Promise.all(quickstart!.split(/\s+/).slice(2).map(async (name) => (name === manifest.name ? `./${tarball}` : `${name}@${await installedVersion(name)}`)));
    await npm(["install", "--prefer-offline", "--no-audit", "--no-fund", ...specs], app, 170_000);
  }, 240_000);

  afterAll(async () => {
    if (pkg) await rm(pkg, { recursive: true, force: true });
    if (app) await rm(app, { recursive: true, force: true });
    await rmdir(tmpRoot).catch(() => undefined); // only when no other run still uses it
  });

  it("runs the README's quick start as written", async () => {
    await writeFile(join(app, "server.mjs"), quickstartBlock("server.mjs"));
    await writeFile(join(app, "agent.ts"), quickstartBlock("agent.ts"));
    const tsx = pathToFileURL(join(root, "node_modules", "tsx", "dist", "loader.mjs")).href;
    const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}` };
    const { stdout } = await exec(process.execPath, ["--import", tsx, "agent.ts"], { cwd: app, timeout: 60_000, env });
    const [tool, answer] = stdout.trim().split("\n");
    expect(tool).toMatch(/^error Error: Tool 'list_issues' failed \(tool_error\): the issue tracker is down for maintenance\./);
    expect(answer).toBe("The tracker is down; I will look again later.");
  }, 90_000);

  it("runs `npx langchain-mcp-errors doctor` on the project's mcp.json", async () => {
    await writeFile(join(app, "mcp.json"), JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [join(app, "todo-server.mjs")] } } }));
    const { stdout } = await npm(["langchain-mcp-errors", "doctor"], app, 60_000, "npx");
    expect(stdout).toMatch(/^mcp\.json\n\n✓ files \(stdio: .*server\.mjs\)\n {2}connected in \d+ ms; protocol \d{4}-\d{2}-\d{2}; server todo-files 1\.0\.0\n {2}1 tool; read-only: find_todos/);
    expect(stdout).toContain("All 1 servers connected.");
  }, 90_000);
});
