/**
 * Every ts and js block of the README and docs/ runs as a reader copies it: each is written into
 * a scratch folder inside this repository (so `langchain-mcp-errors` resolves to the built dist/
 * through the package's self-reference, and `npx -y @modelcontextprotocol/server-everything` to
 * the installed devDependency), beside the quick start files of its page, run with tsx in a
 * process group of its own, and must exit 0 within BLOCK_TIMEOUT_MS, print no configuration
 * warning, and leave no process behind.
 *
 * A block that is only part of a program is marked `<!-- fragment -->` on the line before it, and
 * counted in FRAGMENTS: a fragment is never skipped unnoticed. What the test changes in a block is
 * listed in ADDRESSES (each address a block names, served by an embedded MCP server or left with
 * nothing listening) and the environment (REDIS_URL: the Unix socket of a redis-server started
 * here, a path ioredis takes as it takes a URL).
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, rmdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { availableParallelism } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisProcess, redisServerFound } from "../fleet/redis.js";
import type { HttpFixture } from "../servers/http.js";
import { blocksOf, docPages, embeddedServer, FRAGMENT, fileNameOf, indentedFences, readPage, RUNNABLE, runBlock, type DocBlock } from "./docBlocks.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tmpRoot = join(root, "test", ".tmp");
/** A block's whole run: tsx and LangChain loading on a busy 2-core machine, an npx server starting. */
const BLOCK_TIMEOUT_MS = 60_000;

/** How many blocks each page marks `<!-- fragment -->`, and what they are part of. */
const FRAGMENTS: Record<string, number> = {
  "docs/configuration.md": 1, // a server's toolFilter and the toolkit's filter: two options of a config
  "docs/errors.md": 1, // a server's errorCodes: one option of a server
};

/**
 * Each address a runnable block names, and what answers there while the test runs it: an
 * embedded MCP server offering these tools, or "down", a 127.0.0.1 port where nothing listens.
 */
const ADDRESSES: Record<string, readonly string[] | "down"> = {
  "https://mcp.example.com/mcp": ["search"], // README: a remote server beside the quick start's
  "https://api.githubcopilot.com/mcp/": ["create_issue", "list_issues"], // policies.md: GitHub's server
  "https://search.example.com/mcp": ["search"], // policies.md
  "https://mirror.example.com/mcp": ["search"], // policies.md: search's fallback
  "http://localhost:3001/mcp": "down", // configuration.md: an optional server that is not up
  "https://w.example.com/mcp": "down", // config-files.md: read from a config, never connected
};
const URL_PATTERN = /https?:\/\/[^\s"'`)]+/g;

const blocks: DocBlock[] = docPages(root).flatMap((page) => blocksOf(page, readPage(root, page)));
const runnable = blocks.filter((b) => RUNNABLE.has(b.lang) && b.marker !== FRAGMENT);
const needsRedis = (b: DocBlock) => b.code.includes("REDIS_URL");
const skipRedis = !redisServerFound && process.env.CI !== "true";

const servers: HttpFixture[] = [];
const where = new Map<string, string>();
let redis: RedisProcess | undefined;

/** A 127.0.0.1 port nothing listens on (one the system just gave out and took back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Blocks run concurrently, no more at once than there are cores: each loads LangChain.
let free = Math.max(2, availableParallelism());
const waiting: (() => void)[] = [];
async function limited<T>(task: () => Promise<T>): Promise<T> {
  if (free > 0) free--;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await task();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else free++;
  }
}

describe("the code blocks of the README and docs/", () => {
  beforeAll(async () => {
    expect(existsSync(join(root, "dist", "index.js")), "the package is built (npm install builds dist/)").toBe(true);
    await mkdir(tmpRoot, { recursive: true });
    for (const [address, tools] of Object.entries(ADDRESSES)) {
      if (tools === "down") {
        where.set(address, `http://127.0.0.1:${await closedPort()}/mcp`);
        continue;
      }
      const server = await embeddedServer(new URL(address).hostname, tools);
      servers.push(server);
      where.set(address, server.url.href);
    }
    if (!skipRedis) redis = await new RedisProcess().start();
  }, 30_000);

  afterAll(async () => {
    await Promise.allSettled(servers.map((s) => s.close()));
    await redis?.stop();
    await rmdir(tmpRoot).catch(() => undefined); // only when no other run still uses it
  });

  it("marks every ts and js block that is not a program as a fragment, as many per page as FRAGMENTS says", () => {
    const marked: Record<string, number> = {};
    for (const block of blocks) {
      if (block.marker === FRAGMENT) {
        expect(RUNNABLE.has(block.lang), `${block.file}:${block.line}: a fragment marker before a ${block.lang || "plain"} block`).toBe(true);
        marked[block.file] = (marked[block.file] ?? 0) + 1;
      } else if (block.marker !== undefined && RUNNABLE.has(block.lang)) {
        expect(block.marker, `${block.file}:${block.line}: an unknown marker`).toMatch(/^quickstart:[\w.-]+$/);
      }
    }
    expect(marked).toEqual(FRAGMENTS);
    for (const page of docPages(root)) expect(indentedFences(readPage(root, page)), `${page}: indented code blocks (not extracted)`).toEqual([]);
    expect(runnable.length).toBeGreaterThanOrEqual(10);
  });

  it("names no address but those the test serves", () => {
    const named = new Set(runnable.flatMap((b) => b.code.match(URL_PATTERN) ?? []));
    expect([...named].sort()).toEqual(Object.keys(ADDRESSES).sort());
  });

  // A block's time limit is its run's; the test's own also covers its wait for a turn.
  it.concurrent.for(runnable.map((b): [string, DocBlock] => [`${b.file}:${b.line}`, b]))("%s runs and exits 0", { timeout: BLOCK_TIMEOUT_MS * 3 }, async ([, block], { expect, skip }) => {
    if (needsRedis(block) && skipRedis) skip("no redis-server here (CI installs it; there this fails)");
    const dir = await mkdtemp(join(tmpRoot, "block-"));
    try {
      // The page's quick start files sit beside each of its blocks (the README's server.mjs).
      for (const named of blocks.filter((b) => b.file === block.file && b.marker?.startsWith("quickstart:"))) await writeFile(join(dir, fileNameOf(named)), named.code);
      let code = block.code;
      for (const [address, local] of where) code = code.replaceAll(address, local);
      await writeFile(join(dir, fileNameOf(block)), code);
      const env = { ...process.env, NO_COLOR: "1", PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`, ...(redis ? { REDIS_URL: redis.socket } : {}) };
      const run = await limited(() => runBlock(dir, fileNameOf(block), env, BLOCK_TIMEOUT_MS));
      const output = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
      expect(run.timedOut, `still running after ${BLOCK_TIMEOUT_MS} ms; ${output}`).toBe(false);
      expect(run.code, `exit code; ${output}`).toBe(0);
      expect(run.leftBehind, `processes left running after the block exited; ${output}`).toBe(false);
      expect(run.stderr, "a configuration warning").not.toContain("McpToolkitWarning");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
