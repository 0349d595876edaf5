/**
 * Runs inside a private network namespace (`unshare -rn`, started by ../netns.ts): real sockets
 * on its own loopback, whose packets this process can make vanish with `tc`. The kernel then
 * gives up on them as it does on a real network: a connect whose SYN is never answered fails
 * with `connect ETIMEDOUT`; a request written on a live connection and never acknowledged fails
 * with `read ETIMEDOUT`; and a request written toward a host whose link then goes down fails with
 * `read EHOSTUNREACH` once the kernel's address resolution gives up. Each scenario prints what the real clients threw and how it was
 * classified, as one JSON line.
 */
import { execFileSync, spawn } from "node:child_process";
import { readlinkSync, writeFileSync } from "node:fs";
import { createServer, connect, type Socket } from "node:net";
import type { ToolMessage } from "@langchain/core/messages";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { normalize } from "../../../src/errors/normalize.js";
import { McpToolkit } from "../../../src/index.js";
import { startHttpFixture, type HttpFixture } from "../../servers/http.js";

const run = (command: string, ...args: string[]) => execFileSync(command, args, { stdio: "pipe" });

// The kernel's own limits, shortened in this namespace only: 3 retransmissions of written data
// (about 2 s on loopback) and 1 of a SYN (about 3 s) instead of minutes.
run("ip", "link", "set", "lo", "up");
writeFileSync("/proc/sys/net/ipv4/tcp_retries2", "3");
writeFileSync("/proc/sys/net/ipv4/tcp_syn_retries", "1");
// Addresses with no route at all: connecting to them fails at once with EHOSTUNREACH.
run("ip", "route", "add", "unreachable", "10.8.0.0/24");

/** Every packet on loopback is dropped while `fn` runs (a queue of length 0), as on a dead link. */
async function silently<T>(fn: () => Promise<T>): Promise<T> {
  run("tc", "qdisc", "add", "dev", "lo", "root", "pfifo", "limit", "0");
  try {
    return await fn();
  } finally {
    run("tc", "qdisc", "del", "dev", "lo", "root");
  }
}

/** Pipes every connection accepted on `host` to `target`, both ways. */
function forward(host: string, target: { host: string; port: number }): Promise<{ port: number; close: () => void }> {
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    const outbound = connect(target.port, target.host);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on("error", () => undefined);
      s.once("close", () => sockets.delete(s));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  return new Promise((resolve) => {
    server.listen(0, host, () =>
      resolve({
        port: (server.address() as { port: number }).port,
        close: () => {
          for (const s of sockets) s.destroy();
          server.close();
        },
      }),
    );
  });
}

/**
 * A second host: another network namespace joined to this one by a veth pair (10.9.0.1 here,
 * 10.9.0.2 there), running a forwarder back to `port` on this side's loopback. `cut()` takes its
 * link down and forgets its hardware address, so the next packet toward it finds no one to
 * deliver to and the kernel reports the host unreachable.
 */
async function remoteHop(port: number): Promise<{ url: URL; cut: () => void; close: () => void }> {
  // The other host's one process: it holds the namespace, learns on stdin where to forward, and
  // exits when stdin closes, so it never outlives this process, however this one ends.
  const script = `
    const net = require("net");
    process.stdin.once("data", (line) => {
      const back = Number(String(line));
      net.createServer((a) => { const b = net.connect(back, "10.9.0.1"); for (const s of [a, b]) s.on("error", () => {}); a.pipe(b).pipe(a); })
        .listen(7000, "10.9.0.2", () => console.log("ready"));
    });
    process.stdin.on("end", () => process.exit(0));`;
  const remote = spawn("unshare", ["-n", process.execPath, "-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  await new Promise((resolve) => remote.once("spawn", resolve));
  const pid = String(remote.pid);
  const there = (...args: string[]) => run("nsenter", "-t", pid, "-n", ...args);
  // `unshare` execs node once the namespace exists; wait until the pid is in a namespace of its own.
  for (let i = 0; i < 100 && readlinkSync(`/proc/${pid}/ns/net`) === readlinkSync("/proc/self/ns/net"); i++) await new Promise((r) => setTimeout(r, 20));
  run("ip", "link", "add", "v0", "type", "veth", "peer", "name", "v1");
  run("ip", "link", "set", "v1", "netns", pid);
  run("ip", "addr", "add", "10.9.0.1/24", "dev", "v0");
  run("ip", "link", "set", "v0", "up");
  there("ip", "link", "set", "lo", "up");
  there("ip", "addr", "add", "10.9.0.2/24", "dev", "v1");
  there("ip", "link", "set", "v1", "up");
  // Address resolution gives up after 3 unanswered probes 100 ms apart (1 s each by default).
  writeFileSync("/proc/sys/net/ipv4/neigh/v0/retrans_time_ms", "100");
  const back = await forward("10.9.0.1", { host: "127.0.0.1", port });
  remote.stdin!.write(`${back.port}\n`);
  await new Promise((resolve) => remote.stdout!.once("data", resolve));
  return {
    url: new URL("http://10.9.0.2:7000/mcp"),
    cut: () => {
      there("ip", "link", "set", "v1", "down");
      run("ip", "neigh", "flush", "dev", "v0");
    },
    close: () => {
      remote.stdin!.end();
      back.close();
      run("ip", "link", "del", "v0");
    },
  };
}

/** The cause chain as data: what Node and undici threw, for the test to check. */
function chain(error: unknown): { name?: string; code?: unknown; syscall?: unknown; message?: string }[] {
  const out = [];
  for (let e = error as Record<string, unknown> | undefined; e && typeof e === "object" && out.length < 6; e = e.cause as Record<string, unknown> | undefined) {
    out.push({ name: e.name as string, code: e.code, syscall: e.syscall, message: e.message as string });
  }
  return out;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

async function withFixture<T>(fn: (http: HttpFixture) => Promise<T>): Promise<T> {
  const http = await startHttpFixture();
  try {
    return await fn(http);
  } finally {
    await http.close();
  }
}

const scenarios: Record<string, () => Promise<unknown>> = {
  /** The SDK v1 client, a call written on a live connection that then goes silent. */
  async readTimeout() {
    return withFixture(async (http) => {
      const client = new Client({ name: "netns", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(http.url));
      // A call answered in full leaves its connection idle in the pool: the next request is written on it.
      await client.callTool({ name: "echo", arguments: { text: "warm" } });
      try {
        const error = await silently(() => rejection(client.callTool({ name: "counter", arguments: { key: "k" } })));
        return { chain: chain(error), classified: normalize(error).toJSON(), executions: http.state.executions.get("k") ?? 0 };
      } finally {
        await client.close();
      }
    });
  },
  /** The same client connecting while nothing answers the SYN. */
  async connectTimeout() {
    return withFixture(async (http) => {
      const client = new Client({ name: "netns", version: "1.0.0" });
      const error = await silently(() => rejection(client.connect(new StreamableHTTPClientTransport(http.url))));
      await client.close();
      return { chain: chain(error), classified: normalize(error).toJSON() };
    });
  },
  /** The toolkit's call written toward a host whose link then goes down. */
  async toolkitHostUnreachable() {
    return withFixture(async (http) => {
      const hop = await remoteHop(http.port);
      const toolkit = await McpToolkit.connect({
        servers: { remote: { transport: "http", url: hop.url.href } },
        retry: { retries: 2, minTimeout: 5, maxTimeout: 1_000, randomize: false },
        breaker: { enabled: false },
        timeoutMs: 60_000,
      });
      try {
        const tool = toolkit.getTool("counter")!;
        hop.cut();
        const reply = (await tool.invoke({ type: "tool_call", id: "c1", name: "counter", args: { key: "k" } })) as ToolMessage;
        return { status: reply.status, content: reply.content, artifact: reply.artifact };
      } finally {
        await toolkit.close().catch(() => undefined);
        hop.close();
      }
    });
  },
  /** No route to the host while connecting. */
  async unreachable() {
    const client = new Client({ name: "netns", version: "1.0.0" });
    const error = await rejection(client.connect(new StreamableHTTPClientTransport(new URL("http://10.8.0.1:8080/mcp"))));
    await client.close();
    return { chain: chain(error), classified: normalize(error).toJSON() };
  },
  /** The toolkit, retrying, calling a tool that is not idempotent when the connection goes silent. */
  async toolkitReadTimeout() {
    return withFixture(async (http) => {
      const toolkit = await McpToolkit.connect({
        servers: { remote: { transport: "http", url: http.url.href } },
        retry: { retries: 2, minTimeout: 5, maxTimeout: 1_000, randomize: false },
        breaker: { enabled: false },
        timeoutMs: 60_000,
      });
      try {
        const tool = toolkit.getTool("counter")!;
        const reply = (await silently(() => tool.invoke({ type: "tool_call", id: "c1", name: "counter", args: { key: "k" } }))) as ToolMessage;
        return { status: reply.status, content: reply.content, artifact: reply.artifact, executions: http.state.executions.get("k") ?? 0 };
      } finally {
        await toolkit.close();
      }
    });
  },
};

const results: Record<string, unknown> = {};
for (const name of process.argv.slice(2)) {
  try {
    results[name] = await scenarios[name]!();
  } catch (error) {
    results[name] = { failed: chain(error) };
  }
}
process.stdout.write(`RESULT ${JSON.stringify(results)}\n`);
process.exit(0);
