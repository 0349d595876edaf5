import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY, McpToolError, type McpToolkitConfig } from "../../src/index.js";
import { matchingPolicies, resolvePolicy } from "../../src/policy/resolve.js";
import { backoffDelay, retryVerdict } from "../../src/policy/RetryPolicy.js";
import { DEFAULT_TIMEOUT_MS } from "../../src/config/index.js";

const stdio = { transport: "stdio" as const, command: "x" };
const tool = (exposedName: string, serverName = "github", mcpName = exposedName, annotations = {}) => ({ exposedName, serverName, mcpName, annotations });

describe("per-tool policy resolution", () => {
  const config: McpToolkitConfig = {
    servers: { github: { ...stdio, timeoutMs: 20_000, retry: { retries: 4 } }, other: stdio },
    retry: { retries: 1, minTimeout: 50 },
    timeoutMs: 10_000,
    tools: {
      "*": { retry: { factor: 3 } },
      "github/*": { timeoutMs: 5_000, retry: { retries: 6 } },
      "github/create_*": { retry: { retries: 0 } },
      create_issue: { timeoutMs: 7_000 },
      "github/create_issue": { timeoutMs: 9_000, idempotent: true },
    },
  };

  it("applies built-in defaults when nothing is configured", () => {
    const p = resolvePolicy(tool("search", "other"), { servers: { other: stdio } });
    expect(p.retry).toEqual(DEFAULT_RETRY);
    expect(p.timeoutMs).toBe(DEFAULT_TIMEOUT_MS);
    expect(p.idempotent).toBe(false);
  });

  it("layers toolkit, then server, then tool keys from the least to the most specific", () => {
    const p = resolvePolicy(tool("create_issue"), config);
    // "github/create_issue" (exact qualified) beats "create_issue" (exact name) beats globs.
    expect(p.timeoutMs).toBe(9_000);
    expect(p.idempotent).toBe(true);
    // "github/create_*" beats "github/*" beats the server's retries.
    expect(p.retry.retries).toBe(0);
    // Fields no more specific layer sets come from the less specific ones.
    expect(p.retry.factor).toBe(3);
    expect(p.retry.minTimeout).toBe(50);
    expect(p.retry.maxTimeout).toBe(DEFAULT_RETRY.maxTimeout);
  });

  it("uses the server's settings under any tool key", () => {
    const p = resolvePolicy(tool("list_repos"), { ...config, tools: {} });
    expect(p.retry.retries).toBe(4);
    expect(p.timeoutMs).toBe(20_000);
  });

  it("matches a glob against the exposed name as well as server/tool", () => {
    const p = resolvePolicy(tool("github__search", "github", "search"), { servers: { github: stdio }, tools: { "github__*": { timeoutMs: 1_234 } } });
    expect(p.timeoutMs).toBe(1_234);
  });

  it("finds through its index exactly the keys a scan of every key finds, in the same order", () => {
    // Keys of every shape the index sorts: exact names, globs with a prefix, a suffix, both, neither, stars inside.
    const keys = ["*", "**", "*search*", "git*", "github/*", "github/create_*", "*_issue", "*/list_*", "create_*_pr", "github/c*e*", "c*", "*e", "create_issue", "github/create_issue", "other/*", "g", "*h/c*"];
    const tools: Record<string, { timeoutMs: number }> = Object.fromEntries(keys.map((key, i) => [key, { timeoutMs: i + 1 }]));
    const scan = (name: string, qualified: string) => {
      const re = (key: string) => new RegExp(`^${key.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, "\\$&")).join(".*")}$`);
      const score = (key: string) => {
        if (!key.includes("*")) return key === qualified ? 3e6 : key === name ? 2e6 : -1;
        return re(key).test(name) || re(key).test(qualified) ? key.replaceAll("*", "").length : -1;
      };
      return keys.map((key, i) => ({ key, i, s: score(key) })).filter((k) => k.s >= 0).sort((a, b) => a.s - b.s || a.i - b.i).map((k) => tools[k.key]);
    };
    const names: [string, string, string][] = [["create_issue", "github", "create_issue"], ["github__search", "github", "search"], ["list_repos", "other", "list_repos"], ["e", "g", "e"], ["create_x_pr", "github", "create_x_pr"], ["g", "github", "g"], ["", "s", ""]];
    for (const [exposedName, serverName, mcpName] of names) {
      const found = matchingPolicies(tools, { exposedName, serverName, mcpName });
      expect(found, exposedName).toEqual(scan(exposedName, `${serverName}/${mcpName}`));
      expect(found.length, exposedName).toBeGreaterThan(0);
    }
  });

  it("counts annotations only from trusted servers, and config overrides them", () => {
    const readOnly = { readOnlyHint: true };
    expect(resolvePolicy(tool("get", "s", "get", readOnly), { servers: { s: stdio } }).idempotent).toBe(false);
    expect(resolvePolicy(tool("get", "s", "get", readOnly), { servers: { s: { ...stdio, trustAnnotations: true } } }).idempotent).toBe(true);
    expect(resolvePolicy(tool("get", "s", "get", { idempotentHint: true }), { servers: { s: { ...stdio, trustAnnotations: true } } }).idempotent).toBe(true);
    expect(
      resolvePolicy(tool("get", "s", "get", readOnly), { servers: { s: { ...stdio, trustAnnotations: true } }, tools: { get: { idempotent: false } } }).idempotent,
    ).toBe(false);
  });
});

describe("the safe-repeat rule", () => {
  const opts = DEFAULT_RETRY;
  const err = (reason: Parameters<typeof McpToolError.of>[0], over = {}) => McpToolError.of(reason, "m", over);

  it.each([
    ["a transient failure that never reached the server", err("service_unavailable"), false, true],
    ["a transient failure with an unknown outcome on a non-idempotent tool", err("connection_closed"), false, false],
    ["a transient failure with an unknown outcome on an idempotent tool", err("connection_closed"), true, true],
    ["a permanent failure, even on an idempotent tool", err("invalid_params"), true, false],
    ["a cancel, even on an idempotent tool", err("cancelled"), true, false],
    ["a tool's own error", err("tool_error"), true, false],
  ])("%s → retry %s", (_label, error, idempotent, expected) => {
    expect(retryVerdict(error, 1, idempotent as boolean, opts)).toBe(expected);
  });

  it("repeats unknown outcomes always with retryUnknownOutcome: true, never with false", () => {
    expect(retryVerdict(err("request_timeout"), 1, false, { ...opts, retryUnknownOutcome: true })).toBe(true);
    expect(retryVerdict(err("request_timeout"), 1, true, { ...opts, retryUnknownOutcome: false })).toBe(false);
    expect(retryVerdict(err("service_unavailable"), 1, false, { ...opts, retryUnknownOutcome: false })).toBe(true);
  });

  it("lets a shouldRetry override decide, but never for a cancel", () => {
    const always = { ...opts, shouldRetry: () => true };
    expect(retryVerdict(err("invalid_params"), 1, false, always)).toBe(true);
    expect(retryVerdict(err("cancelled"), 1, false, always)).toBe(false);
  });

  it("backs off exponentially up to maxTimeout, with jitter between 1× and 2×", () => {
    const fixed = { ...opts, randomize: false };
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, fixed))).toEqual([200, 400, 800, 1600, 3200, 5000]);
    expect(backoffDelay(1, opts, () => 0.5)).toBe(300);
  });
});
