/**
 * The published shape: build with tsup into a scratch copy of the package (package.json and
 * dist/, so the real dist/ is left alone), then import it by its own name (Node's package
 * self-reference resolves it through `exports`, as an installed copy would) from ESM and
 * from CommonJS, in a fresh process.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const exec = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));
// Self-reference works only from files inside the package (and not under node_modules/).
const tmpRoot = join(root, "test", ".tmp");
let dir = "";

const FUNCTIONS = ["McpToolError", "normalize", "shouldRetry", "wrapToolError", "handleError", "handleResponseError", "McpToolkit"];
const FACADE = ["normalize", "fromResult", "handleError", "handleResponseError", "shouldRetry", "wrapToolError", "toModelText"];

/** What each script prints: the typeof of every export, and one real call through the bundle. */
const report = `({
  types: Object.fromEntries(Object.entries(named).map(([k, v]) => [k, typeof v])),
  facade: Object.fromEntries(Object.entries(named.ErrorHandler).map(([k, v]) => [k, typeof v])),
  reason: named.normalize(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" })).reason,
  isClass: named.normalize(new Error("x")) instanceof named.McpToolError,
})`;

const ESM = `import { ErrorHandler, McpToolError, normalize, shouldRetry, wrapToolError, handleError, handleResponseError, McpToolkit } from "langchain-mcp-errors";
import { mcpErrorMiddleware } from "langchain-mcp-errors/agents";
import { withIdempotency } from "langchain-mcp-errors/server";
const named = { ErrorHandler, McpToolError, normalize, shouldRetry, wrapToolError, handleError, handleResponseError, McpToolkit, mcpErrorMiddleware, withIdempotency };
console.log(JSON.stringify(${report}));
`;

const CJS = `const { ErrorHandler, McpToolError, normalize, shouldRetry, wrapToolError, handleError, handleResponseError, McpToolkit } = require("langchain-mcp-errors");
const { mcpErrorMiddleware } = require("langchain-mcp-errors/agents");
const { withIdempotency } = require("langchain-mcp-errors/server");
const named = { ErrorHandler, McpToolError, normalize, shouldRetry, wrapToolError, handleError, handleResponseError, McpToolkit, mcpErrorMiddleware, withIdempotency };
console.log(JSON.stringify(${report}));
`;

/**
 * One process holding every copy a user's program can end up with: the ESM build, the CommonJS
 * build (a dual-package app loads both), and a second installed copy. Each copy's error goes
 * through each copy's normalize, mcpRetryOn, instanceof and isMcpToolError.
 */
const CROSS = `import { createRequire } from "node:module";
import * as esm from "langchain-mcp-errors";
import * as esmAgents from "langchain-mcp-errors/agents";
const require = createRequire(import.meta.url);
const copies = {
  esm: { main: esm, agents: esmAgents },
  cjs: { main: require("langchain-mcp-errors"), agents: require("langchain-mcp-errors/agents") },
  installedTwice: { main: require("./copy/dist/index.cjs"), agents: require("./copy/dist/agents.cjs") },
};
const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED", syscall: "connect" });
const out = {};
for (const [maker, made] of Object.entries(copies)) {
  const error = made.main.normalize(refused());
  for (const [reader, read] of Object.entries(copies)) {
    out[maker + " read by " + reader] = {
      retry: read.agents.mcpRetryOn(error),
      passesThrough: read.main.normalize(error) === error,
      reason: read.main.normalize(error).reason,
      instance: error instanceof read.main.McpToolError,
      branded: read.main.isMcpToolError(error),
      middlewareReason: read.main.ErrorHandler.normalize(error).reason,
    };
  }
}
console.log(JSON.stringify(out));
`;

async function runScript(file: string) {
  const { stdout } = await exec(process.execPath, [file], { cwd: root, timeout: 30_000 });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as { types: Record<string, string>; facade: Record<string, string>; reason: string; isClass: boolean };
}

describe("the built package", () => {
  beforeAll(async () => {
    await mkdir(tmpRoot, { recursive: true });
    dir = await mkdtemp(join(tmpRoot, "package-"));
    await exec("npx", ["tsup", "--no-dts", "--out-dir", join(dir, "dist")], { cwd: root, timeout: 60_000 });
    const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as Record<string, unknown>;
    await writeFile(join(dir, "package.json"), JSON.stringify({ name: manifest.name, type: manifest.type, main: manifest.main, exports: manifest.exports }));
    await writeFile(join(dir, "check.mjs"), ESM);
    await writeFile(join(dir, "check.cjs"), CJS);
    await writeFile(join(dir, "cross.mjs"), CROSS);
    await cp(join(dir, "dist"), join(dir, "copy", "dist"), { recursive: true });
  }, 60_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    await rmdir(tmpRoot).catch(() => undefined); // only when no other run still uses it
  });

  it("imports every named export from ESM, including langchain-mcp-errors/agents", async () => {
    const out = await runScript(join(dir, "check.mjs"));
    for (const name of [...FUNCTIONS, "mcpErrorMiddleware"]) expect(out.types[name], name).toBe("function");
    // ErrorHandler is the facade object; each of its members is a function.
    expect(out.types.ErrorHandler).toBe("object");
    for (const name of FACADE) expect(out.facade[name], `ErrorHandler.${name}`).toBe("function");
    expect(out).toMatchObject({ reason: "connection_refused", isClass: true });
  }, 60_000);

  it("requires every named export from CommonJS, including langchain-mcp-errors/agents", async () => {
    const out = await runScript(join(dir, "check.cjs"));
    for (const name of [...FUNCTIONS, "mcpErrorMiddleware"]) expect(out.types[name], name).toBe("function");
    expect(out.types.ErrorHandler).toBe("object");
    for (const name of FACADE) expect(out.facade[name], `ErrorHandler.${name}`).toBe("function");
    expect(out).toMatchObject({ reason: "connection_refused", isClass: true });
  }, 60_000);

  it("bundles one McpToolError class for CommonJS, shared by both entry points", async () => {
    const files = (await readdir(join(dir, "dist"))).filter((f) => f.endsWith(".cjs"));
    const defining: string[] = [];
    for (const file of files) if ((await readFile(join(dir, "dist", file), "utf8")).includes('Symbol.for("langchain-mcp-errors.McpToolError")')) defining.push(file);
    expect(defining).toHaveLength(1);
    expect(defining[0]).toMatch(/^chunk-/);
  }, 60_000);

  it("agrees across copies: ESM, CommonJS and a second installed copy classify, retry and recognise each other's errors", async () => {
    const { stdout } = await exec(process.execPath, [join(dir, "cross.mjs")], { cwd: root, timeout: 30_000 });
    const out = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
    expect(Object.keys(out)).toHaveLength(9);
    for (const [pair, verdict] of Object.entries(out)) {
      expect(verdict, pair).toEqual({ retry: true, passesThrough: true, reason: "connection_refused", instance: true, branded: true, middlewareReason: "connection_refused" });
    }
  }, 60_000);
});
