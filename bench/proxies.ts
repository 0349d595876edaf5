/**
 * The parent's side of bench/server/proxy.ts: fault proxies in a child process, each in front of
 * an upstream URL with its own mix and seed, and what each one received.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { MixPart } from "./faultMix.js";
import type { ProxyReply, ProxyRequest } from "./server/proxy.js";
import { roleEnv } from "./servers.js";

export interface RemoteProxy {
  url: URL;
  /** The `key` argument of each tools/call request the proxy received, in arrival order. */
  toolCallKeys: () => Promise<string[]>;
  close: () => Promise<void>;
}

export interface ProxyHost {
  start: (upstream: URL, mix: readonly MixPart[], seed: number) => Promise<RemoteProxy>;
  /** Closes every proxy and ends the child. */
  close: () => Promise<void>;
}

export async function startProxyHost(role = "bench-proxy"): Promise<ProxyHost> {
  const child: ChildProcess = fork(fileURLToPath(new URL("./server/proxy.ts", import.meta.url)), [], { execArgv: ["--import", "tsx"], env: { ...process.env, ...roleEnv(role) }, stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const waiting = new Map<number, (reply: ProxyReply) => void>();
  child.on("message", (reply: ProxyReply) => {
    const resolve = waiting.get(reply.id);
    waiting.delete(reply.id);
    resolve?.(reply);
  });
  await new Promise<void>((resolve, reject) => child.once("spawn", resolve).once("error", reject));
  let nextId = 0;
  // One request per proxy at a time: a reply is matched by its proxy's id.
  const ask = <T extends ProxyReply["type"]>(request: ProxyRequest, want: T): Promise<Extract<ProxyReply, { type: T }>> =>
    new Promise((resolve, reject) => {
      waiting.set(request.id, (reply) => (reply.type === want ? resolve(reply as Extract<ProxyReply, { type: T }>) : reject(new Error(reply.type === "error" ? reply.message : `unexpected ${reply.type}`))));
      child.send(request);
    });
  return {
    start: async (upstream, mix, seed) => {
      const id = nextId++;
      const { url } = await ask({ type: "start", id, upstream: upstream.href, mix: [...mix], seed }, "started");
      return {
        url: new URL(url),
        toolCallKeys: async () => (await ask({ type: "keys", id }, "keys")).keys,
        close: async () => void (await ask({ type: "close", id }, "closed")),
      };
    },
    close: async () => {
      child.disconnect();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
