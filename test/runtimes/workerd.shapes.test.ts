/**
 * workerd's error shapes, pinned (issue 36): a Worker in Miniflare fetches real servers on
 * 127.0.0.1 and sends back what it caught; each is rebuilt here as the Error it was and
 * classified. When workerd changes a text, this fails before the classifier silently stops
 * reading it. (The end-to-end run of the toolkit inside a Worker is the workerd suite's.)
 */
import { spawnSync } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalize } from "../../src/errors/normalize.js";
import { selfSignedCertificate, TlsEndpoint } from "../servers/tls.js";

const WORKER = `
export default {
  async fetch(request) {
    const url = await request.text();
    try {
      const response = await fetch(url, { method: "POST", body: "{}" });
      await response.text();
      return Response.json({ ok: response.status });
    } catch (e) {
      return Response.json({ name: e.name, message: e.message, code: e.code, retryable: e.retryable, remote: e.remote, cause: e.cause === undefined ? undefined : String(e.cause) });
    }
  },
};`;

interface Caught {
  name: string;
  message: string;
  code?: unknown;
  retryable?: boolean;
  remote?: boolean;
  cause?: string;
}

/** A TCP server on 127.0.0.1 that does `onData` to each connection's first bytes. */
async function tcp(onData: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    socket.on("error", () => undefined);
    socket.once("data", () => onData(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** Miniflare runs the workerd binary from npm; CI installs it with `npm ci`. */
const WORKERD = fileURLToPath(new URL("../../node_modules/.bin/workerd", import.meta.url));
const workerdStarts = spawnSync(WORKERD, ["--version"], { stdio: "ignore", timeout: 30_000 }).status === 0;

let mf: Miniflare;
const servers: { close(): unknown }[] = [];
const urls: Record<string, string> = {};

beforeAll(async () => {
  if (!workerdStarts) return;
  const closed = await tcp(() => undefined);
  await new Promise((resolve) => closed.server.close(resolve));
  const reset = await tcp((s) => s.resetAndDestroy());
  const midBody = await tcp((s) => {
    s.write("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"jsonrpc\":");
    // The head is out; the reset follows on the next turn, not after a wait.
    setImmediate(() => s.resetAndDestroy());
  });
  const upstream = await tcp((s) => s.end("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"));
  const tls = await new TlsEndpoint(upstream.port, selfSignedCertificate()).start();
  servers.push(reset.server, midBody.server, upstream.server, tls);
  Object.assign(urls, {
    refused: `http://127.0.0.1:${closed.port}/mcp`,
    port1: "http://127.0.0.1:1/mcp",
    reset: `http://127.0.0.1:${reset.port}/mcp`,
    midBody: `http://127.0.0.1:${midBody.port}/mcp`,
    dns: "http://nonexistent.invalid/mcp",
    tls: tls.url("/mcp", "localhost").href,
  });
  mf = new Miniflare({ modules: true, script: WORKER, compatibilityDate: "2026-07-01" });
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  for (const s of servers) await s.close();
});

async function caught(url: string): Promise<Caught> {
  const response = await mf.dispatchFetch("http://worker/", { method: "POST", body: url });
  return (await response.json()) as Caught;
}

function rebuilt(c: Caught): Error {
  return Object.assign(new Error(c.message), c.retryable === undefined ? {} : { retryable: c.retryable }, c.remote === undefined ? {} : { remote: c.remote });
}

describe.skipIf(!workerdStarts)(`workerd's fetch failures, as a Worker catches them${workerdStarts ? "" : ` (skipped: ${WORKERD} --version failed)`}`, () => {
  it.each(["refused", "port1", "reset", "midBody"])("%s: 'Network connection lost.', retryable, no code: connection_reset with outcome unknown", async (which) => {
    const c = await caught(urls[which]!);
    expect(c).toMatchObject({ name: "Error", message: "Network connection lost.", retryable: true });
    expect(c.code).toBeUndefined();
    expect(normalize(rebuilt(c), { url: urls[which] })).toMatchObject({ reason: "connection_reset", kind: "transport", outcome: "unknown" });
  });

  it.each(["dns", "tls"])("%s: an opaque 'internal error; reference = …': unknown, not transient, outcome unknown", async (which) => {
    const c = await caught(urls[which]!);
    expect(c.message).toMatch(/^internal error; reference = [0-9a-z]+$/);
    expect(c.code).toBeUndefined();
    expect(normalize(rebuilt(c), { url: urls[which] })).toMatchObject({ reason: "unknown", kind: "transport", transient: false, outcome: "unknown" });
  });
});
