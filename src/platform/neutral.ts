/**
 * The platform where Node's APIs are not (Cloudflare Workers, Vercel Edge, a browser): web APIs
 * only, no `node:` import and no Node-only package (test/runtimes/worker.test.ts walks the build
 * for one). Config files are left undefined: loadMcpConfig refuses a path, naming it. Stdio
 * servers, the TCP listen probe and Redis shared state are missing one floor up, in
 * src/nodeOnly/neutral.ts.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { scrypt, scryptAsync } from "@noble/hashes/scrypt.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { Platform, RunContext } from "./types.js";

/** The part of `AsyncLocalStorage` this file reads, wherever it comes from. */
interface ContextClass {
  new <T>(): RunContext<T>;
  snapshot?: () => <R>(fn: () => R) => R;
}

/**
 * The runtime's AsyncLocalStorage, when it has one that a web-API program can reach: a global one
 * (Vercel's edge runtime), or the instance LangGraph's entry gives LangChain (`@langchain/langgraph`
 * does it with `node:async_hooks`, which Workers have under `nodejs_compat` or `nodejs_als`).
 * Looked up when first needed, since LangGraph may load after this library.
 */
function contextClass(): ContextClass | undefined {
  const scope = globalThis as { AsyncLocalStorage?: unknown } & Record<symbol, unknown>;
  if (typeof scope.AsyncLocalStorage === "function") return scope.AsyncLocalStorage as ContextClass;
  const langchains = scope[Symbol.for("ls:tracing_async_local_storage")] as { constructor?: unknown; run?: unknown } | undefined;
  // LangChain's stand-in (MockAsyncLocalStorage) also has `run`; a real one has `enterWith`.
  if (typeof langchains?.run === "function" && typeof (langchains as { enterWith?: unknown }).enterWith === "function") return langchains.constructor as ContextClass;
  return undefined;
}

/**
 * An async context store that uses the runtime's AsyncLocalStorage once there is one. Until then
 * (or in a runtime without one) a store is seen only by the synchronous part of `fn`: events of a
 * retry deep in a call reach no LangChain callback of its tool run. Progress on LangGraph's custom
 * stream does not depend on it (the writer travels with the call).
 */
class LateContext<T> implements RunContext<T> {
  private real: RunContext<T> | undefined;
  private current: T | undefined;

  private resolved(): RunContext<T> | undefined {
    if (this.real) return this.real;
    const Class = contextClass();
    if (Class) this.real = new Class<T>();
    return this.real;
  }

  run<R>(store: T, fn: () => R): R {
    const real = this.resolved();
    if (real) return real.run(store, fn);
    const before = this.current;
    this.current = store;
    try {
      return fn();
    } finally {
      this.current = before;
    }
  }

  getStore(): T | undefined {
    return this.real ? this.real.getStore() : this.current;
  }
}

export const platform: Platform = {
  name: "neutral",
  env: () => (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {},
  cwd: () => undefined,
  homeDir: () => undefined,
  warn: (message, type) => console.warn(`${type}: ${message}`),
  sha256Hex: (text) => bytesToHex(sha256(utf8ToBytes(text))),
  scryptHex: (input, salt, length, cost) => bytesToHex(scrypt(input, salt, { N: cost.N, r: cost.r, p: cost.p, dkLen: length, maxmem: cost.maxmem })),
  scryptHexAsync: async (input, salt, length, cost) => bytesToHex(await scryptAsync(input, salt, { N: cost.N, r: cost.r, p: cost.p, dkLen: length, maxmem: cost.maxmem })),
  runContext: <T>() => new LateContext<T>(),
  bindContext: (fn) => {
    const snapshot = contextClass()?.snapshot?.();
    return snapshot ? (...args) => snapshot(() => fn(...args)) : fn;
  },
  unlimitedListeners: () => undefined,
  unref: () => undefined,
};
