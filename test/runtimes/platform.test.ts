/**
 * The two platforms agree where a value crosses runtimes: a tool name's hash and a server's
 * identity (catalog entries and Redis keys) are the same whichever build made them, and the
 * neutral async context works as AsyncLocalStorage does once the runtime has one.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { platform as neutral } from "../../src/platform/neutral.js";
import { platform as node } from "../../src/platform/node.js";
import { nodeOnly as nodeServices } from "../../src/nodeOnly/index.js";
import { nodeOnly as noNodeServices } from "../../src/nodeOnly/neutral.js";

const COST = { N: 1 << 10, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

describe("the neutral platform against Node's", () => {
  it("gives the same SHA-256 and scrypt digests (sync and async)", async () => {
    for (const text of ["", "search\u0000find_docs", "héllo ☃ 𝄞"]) expect(neutral.sha256Hex(text)).toBe(node.sha256Hex(text));
    const input = JSON.stringify({ url: "https://mcp.example.com/mcp", headers: [["authorization", "Bearer s3cret"]] });
    const expected = node.scryptHex(input, "salt", 8, COST);
    expect(expected).toMatch(/^[0-9a-f]{16}$/);
    expect(neutral.scryptHex(input, "salt", 8, COST)).toBe(expected);
    expect(await neutral.scryptHexAsync(input, "salt", 8, COST)).toBe(expected);
    expect(await node.scryptHexAsync(input, "salt", 8, COST)).toBe(expected);
  });

  it("has none of what needs Node", () => {
    expect([neutral.files, noNodeServices.stdioTransport, noNodeServices.listenProbe, noNodeServices.fleet]).toEqual([undefined, undefined, undefined, undefined]);
    expect(node.files && nodeServices.stdioTransport && nodeServices.listenProbe && nodeServices.fleet).toBeTruthy();
  });

  it("keeps a store only for the synchronous part of a run without an AsyncLocalStorage, and across awaits once LangChain holds one", async () => {
    const key = Symbol.for("ls:tracing_async_local_storage");
    const scope = globalThis as Record<symbol, unknown>;
    const before = scope[key];
    try {
      delete scope[key];
      const bare = neutral.runContext<string>();
      const seen = await bare.run("a", async () => {
        const sync = bare.getStore();
        await new Promise((resolve) => setTimeout(resolve, 1));
        return [sync, bare.getStore()];
      });
      expect(seen).toEqual(["a", undefined]);
      expect(bare.getStore()).toBeUndefined();

      scope[key] = new AsyncLocalStorage();
      const real = neutral.runContext<string>();
      const kept = await real.run("b", async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return real.getStore();
      });
      expect(kept).toBe("b");
    } finally {
      if (before === undefined) delete scope[key];
      else scope[key] = before;
    }
  });
});

describe("the floor", () => {
  it("src/platform/ imports nothing of ours from outside it: what the Node build adds is injected from above", () => {
    const dir = join(import.meta.dirname, "../../src/platform");
    const outside: string[] = [];
    for (const file of readdirSync(dir).filter((name) => name.endsWith(".ts"))) {
      const text = readFileSync(join(dir, file), "utf8");
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
        if (specifier!.startsWith(".") && !specifier!.startsWith("./")) outside.push(`${file}: ${specifier}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
