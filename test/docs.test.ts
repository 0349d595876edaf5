/**
 * The docs state every default; these tests read their option tables (in docs/, linked from the
 * README) row by row and compare each with the one place the default is stated, the
 * configuration schema, so the two never drift.
 */
import { readFileSync } from "node:fs";
import type { z } from "zod";
import { describe, expect, it } from "vitest";
import {
  BreakerOptionsSchema,
  ClientServerConfigSchema,
  DEFAULT_TIMEOUT_MS,
  defaultsOf,
  ErrorOptionsSchema,
  HttpServerConfigSchema,
  McpToolkitConfigSchema,
  ReconnectOptionsSchema,
  RetryBudgetOptionsSchema,
  RetryOptionsSchema,
  ServerOptionsSchema,
  SseServerConfigSchema,
  StdioServerConfigSchema,
  ThrottleOptionsSchema,
  ToolPolicySchema,
} from "../src/config/index.js";
import { REASONS } from "../src/index.js";
import { literal } from "./config/literal.js";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
/** A reference page under docs/. */
const doc = (file: string) => readFileSync(new URL(`../docs/${file}`, import.meta.url), "utf8");

/** The rows of the Markdown table in docs/`file` whose header starts with `firstHeader`, as raw cells. */
function table(file: string, firstHeader: string): string[][] {
  const lines = doc(file).split("\n");
  const start = lines.findIndex((l) => l.startsWith(`| ${firstHeader} |`));
  expect(start, `a table in docs/${file} starting with '${firstHeader}'`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    // `\|` is a pipe inside a cell.
    rows.push(line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}

const NO_DEFAULT = Symbol("no default");
type Documented = Map<string, unknown>;
type OptionsSchema = { shape: Record<string, z.ZodType> };

/**
 * Every option of an options schema with its default, or NO_DEFAULT for one that has none
 * (required, inherited from another layer, or simply off). `nested` names the option objects
 * that a table lists field by field, as `errors.mode`.
 */
function documented(schema: OptionsSchema, nested: Record<string, OptionsSchema> = {}): Documented {
  const defaults: Record<string, unknown> = defaultsOf(schema);
  const out: Documented = new Map();
  for (const key of Object.keys(schema.shape)) {
    const inner = nested[key];
    if (inner) for (const [k, v] of documented(inner)) out.set(`${key}.${k}`, v);
    else out.set(key, Object.hasOwn(defaults, key) ? defaults[key] : NO_DEFAULT);
  }
  return out;
}

/** The server table lists what every kind takes, then each kind's own options that have a default. */
/** Every server option; one whose default differs by kind of server is listed per kind, as `era (stdio)`. */
function serverOptions(): Documented {
  const out = documented(ServerOptionsSchema, { reconnect: ReconnectOptionsSchema });
  const shared = new Set(out.keys());
  const kinds: [string, OptionsSchema][] = [["stdio", StdioServerConfigSchema], ["http", HttpServerConfigSchema], ["sse", SseServerConfigSchema], ["client", ClientServerConfigSchema]];
  const byKind = new Map<string, Map<string, unknown>>();
  for (const [kind, schema] of kinds) {
    for (const [key, value] of Object.entries(defaultsOf(schema))) {
      if (shared.has(key)) continue;
      byKind.set(key, (byKind.get(key) ?? new Map()).set(kind, value));
    }
  }
  for (const [key, values] of byKind) {
    const distinct = new Set([...values.values()].map((v) => JSON.stringify(v)));
    if (distinct.size === 1) out.set(key, [...values.values()][0]);
    else for (const [kind, value] of values) out.set(`${key} (${kind})`, value);
  }
  return out;
}

const TABLES: [file: string, header: string, options: Documented][] = [
  ["policies.md", "retry option", documented(RetryOptionsSchema.out)],
  ["policies.md", "breaker option", documented(BreakerOptionsSchema)],
  ["policies.md", "retry budget option", documented(RetryBudgetOptionsSchema)],
  ["policies.md", "throttle option", documented(ThrottleOptionsSchema)],
  ["policies.md", "tool policy option", documented(ToolPolicySchema)],
  ["configuration.md", "toolkit option", documented(McpToolkitConfigSchema, { errors: ErrorOptionsSchema })],
  ["configuration.md", "server option", serverOptions()],
];

/** `retries` from `` `retries` ``, `shouldRetry` from `` `shouldRetry(error, attempt)` ``, `stderrLines` from `` `stderrLines` (stdio) ``. */
const optionName = (cell: string) => /^`([^`(]+)/.exec(cell)?.[1] ?? cell;

describe.each(TABLES)("docs/%s: the '%s' table", (file, header, options) => {
  const rows = table(file, header).map(([name, defaultCell]) => {
    const perKind = /^`([^`(]+)` \((\w+)\)$/.exec(name!);
    const key = perKind && options.has(`${perKind[1]} (${perKind[2]})`) ? `${perKind[1]} (${perKind[2]})` : optionName(name!);
    return [key, defaultCell!] as const;
  });

  it("has one row for each option in the schema, and no other", () => {
    expect(rows.map(([name]) => name).sort()).toEqual([...options.keys()].sort());
  });

  it.each(rows)("states the default of %s as the schema does", (name, cell) => {
    const value = options.get(name);
    // An option without a default may say where its value comes from, but states no value of its own.
    if (value === NO_DEFAULT) expect(cell).not.toMatch(/^`[^`]*`$/);
    else expect(cell).toBe(`\`${literal(value)}\``);
  });
});

describe("the README and docs/", () => {
  it("says a tool's timeout comes from its server, else from the toolkit", () => {
    const [, cell] = table("policies.md", "tool policy option").find(([name]) => optionName(name!) === "timeoutMs")!;
    expect(cell).toBe(`the server's \`timeoutMs\`, else the toolkit's (\`${DEFAULT_TIMEOUT_MS}\`)`);
  });

  it("states wrapTool's defaults as its code applies them", async () => {
    // The paragraph under docs/configuration.md's "## Other entry points".
    const lines = doc("configuration.md").split("\n");
    const paragraph = lines[lines.indexOf("## Other entry points") + 2]!;
    expect(paragraph).toMatch(/^`createMcpTools\(client, options\)`/);
    expect(paragraph).toContain(`\`timeoutMs\` default \`${DEFAULT_TIMEOUT_MS}\``);
    expect(paragraph).toContain("`idempotent` default `false`");
    expect(paragraph).toContain('`errorMode` default `"return"`');
    // And the code agrees: a wrapped tool that is not marked idempotent says so in its metadata.
    const { tool } = await import("@langchain/core/tools");
    const { wrapTool } = await import("../src/index.js");
    const wrapped = wrapTool(tool(async () => "ok", { name: "t", description: "t" }));
    expect(wrapped.metadata.idempotent).toBe(false);
  });

  it("lists every reason of the taxonomy with its defaults", () => {
    const rows = table("errors.md", "reason").map((r) => r.map((c) => c.replace(/^`|`$/g, "")));
    expect(rows.map((r) => r[0])).toEqual(Object.keys(REASONS));
    for (const [reason, kind, transient, outcome] of rows) {
      const info = REASONS[reason as keyof typeof REASONS];
      expect([kind, transient, outcome], reason).toEqual([info.kind, info.transient ? "yes" : "no", info.outcome]);
    }
  });

  it("shows the two commands a newcomer runs", () => {
    expect(readme).toContain("npm install && npm run demo");
    expect(readme).toContain("npm test");
  });
});
