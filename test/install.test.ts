/**
 * A new user's first ten minutes, as the README tells them: build the package as npm would
 * publish it, pack it, install the tarball into an empty project with the README's install
 * command, then run the README's agent in 15 lines and `npx langchain-mcp-errors doctor` there.
 *
 * The install works from npm's cache: the peers are pinned to the versions this repository
 * installed, so `npm ci` has already fetched their tarballs (anything missing, such as package
 * metadata a lock file install skips, comes from the npm registry). The agent's remote pieces
 * are replaced by local ones: a stdio server written with the SDK the package brought along, an
 * HTTP server on 127.0.0.1, and a scripted model.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpFixture } from "./servers/http.js";

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

/** `code` with `from` replaced by `to`, once; a README that no longer says `from` fails the test here. */
function replaceOnce(code: string, from: string, to: string): string {
  expect(code.split(from).length - 1, `the README's agent says ${from} once`).toBe(1);
  return code.replace(from, () => to);
}

/** npm (or npx) as a user runs it: none of the variables of the `npm test` that may have started this run. */
function npm(args: string[], cwd: string, timeout: number, command: "npm" | "npx" = "npm") {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_(package|lifecycle|config_local_prefix)/i.test(k) && k !== "INIT_CWD"));
  return exec(command, args, { cwd, timeout, env });
}

async function installedVersion(name: string): Promise<string> {
  return (JSON.parse(await readFile(join(root, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
}

/** A stdio MCP server standing in for the filesystem server, written as a user would, with the v1 SDK. */
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
    await writeFile(join(app, "server.mjs"), SERVER);

    const command = readmeBlock("Add it to your project", "bash").trim();
    expect(command).toBe("npm install langchain-mcp-errors @langchain/core langchain");
    const specs = await Promise.all(command.split(/\s+/).slice(2).map(async (name) => (name === manifest.name ? `./${tarball}` : `${name}@${await installedVersion(name)}`)));
    await npm(["install", "--prefer-offline", "--no-audit", "--no-fund", ...specs], app, 170_000);
  }, 240_000);

  afterAll(async () => {
    if (pkg) await rm(pkg, { recursive: true, force: true });
    if (app) await rm(app, { recursive: true, force: true });
    await rmdir(tmpRoot).catch(() => undefined); // only when no other run still uses it
  });

  it("runs the README's agent in 15 lines", async () => {
    const search = await startHttpFixture({ bearer: "token-for-search" });
    try {
      let code = readmeBlock("An agent in 15 lines", "ts");
      code = replaceOnce(code, 'command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."]', `command: process.execPath, args: [${JSON.stringify(join(app, "server.mjs"))}]`);
      code = replaceOnce(code, 'url: "https://mcp.example.com/mcp"', `url: ${JSON.stringify(search.url.href)}`);
      code = replaceOnce(code, 'model: "openai:gpt-4o-mini"', "model: scripted");
      const script = `import { AIMessage, fakeModel } from "langchain";
const scripted = fakeModel()
  .respondWithTools([{ name: "find_todos", args: {}, id: "call_1" }])
  .respondWithTools([{ name: "echo", args: { text: "indexed" }, id: "call_2" }])
  .respond(new AIMessage("One TODO, in src/app.ts."));
${code}
console.log(JSON.stringify(result.messages.map((m) => [m.type, typeof m.content === "string" ? m.content : JSON.stringify(m.content), m.status ?? null])));
`;
      await writeFile(join(app, "agent.mjs"), script);
      const { stdout } = await exec(process.execPath, ["agent.mjs"], { cwd: app, timeout: 60_000, env: { ...process.env, TOKEN: "token-for-search" } });
      const messages = JSON.parse(stdout.trim().split("\n").at(-1)!) as [string, string, string | null][];
      expect(messages.map(([type]) => type)).toEqual(["human", "ai", "tool", "ai", "tool", "ai"]);
      expect(messages.filter(([type]) => type === "tool")).toEqual([
        ["tool", "src/app.ts:3: TODO: handle the timeout", "success"],
        ["tool", "indexed", "success"],
      ]);
      expect(messages.at(-1)).toEqual(["ai", "One TODO, in src/app.ts.", null]);
      // The header the README builds from the environment reached the server.
      expect(search.seenHeaders.some((h) => h.authorization === "Bearer token-for-search")).toBe(true);
    } finally {
      await search.close();
    }
  }, 90_000);

  it("runs `npx langchain-mcp-errors doctor` on the project's mcp.json", async () => {
    await writeFile(join(app, "mcp.json"), JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [join(app, "server.mjs")] } } }));
    const { stdout } = await npm(["langchain-mcp-errors", "doctor"], app, 60_000, "npx");
    expect(stdout).toMatch(/^mcp\.json\n\n✓ files \(stdio: .*server\.mjs\)\n {2}connected in \d+ ms; protocol \d{4}-\d{2}-\d{2}; server todo-files 1\.0\.0\n {2}1 tool; read-only: find_todos/);
    expect(stdout).toContain("All 1 servers connected.");
  }, 90_000);
});
