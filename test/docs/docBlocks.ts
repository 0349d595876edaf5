/**
 * The code blocks of the README and docs/, as test/docs/blocks.test.ts runs them: every fenced
 * ```ts, ```js (and their kin) block, with the HTML comment on the line right before it, which
 * says what the block is: `<!-- fragment -->` (part of a program, not run; blocks.test.ts counts
 * them) or `<!-- quickstart:<name> -->` (a file of the README's quick start, written under its name).
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { HttpFixture } from "../servers/http.js";

export interface DocBlock {
  /** The page, relative to the repository: `README.md`, `docs/policies.md`. */
  file: string;
  /** The line of the opening fence, from 1. */
  line: number;
  lang: string;
  code: string;
  /** The HTML comment on the line before the fence, without `<!--` and `-->`. */
  marker?: string;
}

/** The languages whose blocks are programs to run (or fragments to mark). */
export const RUNNABLE = new Set(["ts", "typescript", "mts", "cts", "js", "javascript", "mjs", "cjs"]);
export const FRAGMENT = "fragment";

/** The README and every page of docs/. */
export function docPages(root: string): string[] {
  const pages = readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md")).sort();
  return ["README.md", ...pages.map((name) => `docs/${name}`)];
}

/** Every fenced block of `text` opened at the start of a line, with its marker. */
export function blocksOf(file: string, text: string): DocBlock[] {
  const lines = text.split("\n");
  const out: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})\s*([\w-]*)/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const end = lines.findIndex((l, j) => j > i && l.startsWith(fence) && l.slice(fence.length).trim() === "");
    if (end < 0) throw new Error(`${file}:${i + 1}: a code block that is never closed`);
    const marker = /^<!--\s*(.*?)\s*-->$/.exec(lines[i - 1] ?? "")?.[1];
    out.push({ file, line: i + 1, lang: open[2]!, code: lines.slice(i + 1, end).join("\n") + "\n", ...(marker ? { marker } : {}) });
    i = end;
  }
  return out;
}

/** Fences that do not start at the beginning of their line: a list's code, which blocksOf does not extract. */
export function indentedFences(text: string): number[] {
  return text.split("\n").flatMap((l, i) => (/^\s+`{3,}/.test(l) ? [i + 1] : []));
}

/** The name a block is written under: its quick start name, else one made from its page and line. */
export function fileNameOf(block: DocBlock): string {
  const named = /^quickstart:(.+)$/.exec(block.marker ?? "")?.[1];
  if (named) return named;
  const ext = { ts: "ts", typescript: "ts", mts: "mts", cts: "cts", js: "mjs", javascript: "mjs", mjs: "mjs", cjs: "cjs" }[block.lang] ?? block.lang;
  return `${block.file.replace(/\W+/g, "-")}-${block.line}.${ext}`;
}

export interface BlockRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Processes of the block's group still running after it exited (servers it never stopped). */
  leftBehind: boolean;
}

/** Whether any process of the group led by `pid` is alive. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `file` in `cwd` with tsx, as `npx tsx <file>` does, in a process group of its own, so that
 * what it starts (a stdio server, npx) is seen if it outlives it. Past `timeoutMs` the group is
 * killed; after the exit the group has `graceMs` to be gone, else it is killed and reported.
 */
export function runBlock(cwd: string, file: string, env: NodeJS.ProcessEnv, timeoutMs: number, graceMs = 5_000): Promise<BlockRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", file], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const pid = child.pid!;
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(-pid, "SIGKILL");
    }, timeoutMs);
    // "close" waits for every holder of the pipes, a server left running included: wait for "exit".
    const closed = new Promise((r) => child.once("close", r));
    child.once("error", reject);
    child.once("exit", async (code, signal) => {
      clearTimeout(timer);
      const until = Date.now() + graceMs;
      while (groupAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      const leftBehind = groupAlive(pid);
      if (leftBehind) process.kill(-pid, "SIGKILL");
      await closed;
      resolve({ code, signal, stdout, stderr, timedOut, leftBehind });
    });
  });
}

/** A streamable-HTTP MCP server on 127.0.0.1 offering `tools`, each answering `<tool> ran`. */
export function embeddedServer(name: string, tools: readonly string[]): Promise<HttpFixture> {
  const build = () => {
    const server = new McpServer({ name, version: "1.0.0" });
    for (const tool of tools) server.registerTool(tool, { description: `${tool} (embedded for the docs' blocks)` }, async () => ({ content: [{ type: "text", text: `${tool} ran` }] }));
    return server;
  };
  return new HttpFixture({ build }).start();
}

/** The text of a page. */
export function readPage(root: string, file: string): string {
  return readFileSync(join(root, file), "utf8");
}
