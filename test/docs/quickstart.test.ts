/**
 * The README's quick start runs as written: its `server.mjs` and `agent.ts`, copied verbatim
 * from the README, are type-checked and run with tsx, and print what the README says they print.
 *
 * The files go into a scratch folder inside this repository with no package.json of its own, so
 * the repository's package.json is theirs: `"type": "module"` (what the quick start's
 * `npm pkg set type=module` sets) and `import … from "langchain-mcp-errors"` resolving through
 * Node's package self-reference to the built `dist/` (which `npm install` builds), as an
 * installed copy would. test/install.test.ts runs the same files in a real empty project.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, rmdir, writeFile } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quickstartBlock, quickstartOutput, quickstartSetup } from "./readmeBlocks.js";

const exec = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const tmpRoot = join(root, "test", ".tmp");
let dir = "";

describe("the README's quick start", () => {
  beforeAll(async () => {
    expect(existsSync(join(root, "dist", "index.js")), "the package is built (npm install builds dist/)").toBe(true);
    await mkdir(tmpRoot, { recursive: true });
    dir = await mkdtemp(join(tmpRoot, "quickstart-"));
    await writeFile(join(dir, "server.mjs"), quickstartBlock("server.mjs"));
    await writeFile(join(dir, "agent.ts"), quickstartBlock("agent.ts"));
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    await rmdir(tmpRoot).catch(() => undefined); // only when no other run still uses it
  });

  it("makes the project an ES module, which its top-level await needs", () => {
    const setup = quickstartSetup();
    expect(setup).toContain("npm pkg set type=module");
    expect(setup).toMatch(/npm install langchain-mcp-errors @langchain\/core langchain @modelcontextprotocol\/sdk\n/);
    // The scratch folder inherits this module type from the repository's package.json.
    expect((JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { type?: string }).type).toBe("module");
  });

  it("type-checks agent.ts as an ES module under strict settings, the declarations it reaches included", async () => {
    // No --skipLibCheck: a reader's plain `tsc` checks every declaration file agent.ts reaches. LangChain's
    // declarations use Symbol.asyncDispose and the v2 MCP SDK's use Buffer, both declared by @types/node,
    // so the quick start installs it; --types node gives the check that one, and none of the other
    // @types packages this repository has (chai, estree, …) that a reader's project would not.
    expect(quickstartSetup()).toMatch(/^npm install -D tsx typescript @types\/node$/m);
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    const args = ["--noEmit", "--strict", "--types", "node", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "agent.ts"];
    const run = await exec(process.execPath, [tsc, ...args], { cwd: dir, timeout: 120_000 }).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? String(e) }));
    expect(run.stdout).toBe("");
  }, 150_000);

  it("runs with `npx tsx agent.ts`: the tool's failure reaches the model as an error ToolMessage, and the agent finishes", async () => {
    expect(quickstartBlock("run").trim()).toBe("npx tsx agent.ts");
    // What `npx tsx agent.ts` does, with the repository's tsx; `node` in server config is found on PATH.
    const env = { ...process.env, NO_COLOR: "1", PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}` };
    const { stdout } = await exec(process.execPath, ["--import", "tsx", "agent.ts"], { cwd: dir, timeout: 60_000, env });
    expect(stdout.split("\n")[0]).toMatch(/^error Error: Tool 'list_issues' failed \(tool_error\): /);
    expect(stdout).toBe(quickstartOutput());
  }, 90_000);
});
