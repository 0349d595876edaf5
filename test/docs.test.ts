/**
 * The README states every default; these tests read it and compare with the one place each
 * default is defined in code, so the two never drift.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_CONNECT_TIMEOUT_MS } from "../src/mcp/Connection.js";
import { DEFAULT_STDERR_LINES } from "../src/mcp/transports.js";
import { DEFAULT_BREAKER, DEFAULT_CLIENT_INFO, DEFAULT_MAX_LENGTH, DEFAULT_RECONNECT, DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, REASONS } from "../src/index.js";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

/** The rows of the first Markdown table whose header starts with `firstHeader`. */
function table(firstHeader: string): string[][] {
  const lines = readme.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`| ${firstHeader} |`));
  expect(start, `a README table starting with '${firstHeader}'`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split("|").slice(1, -1).map((c) => c.trim().replace(/^`|`$/g, "")));
  }
  return rows;
}

const literal = (value: unknown) => (typeof value === "string" ? `"${value}"` : value === Number.POSITIVE_INFINITY ? "Infinity" : String(value));

describe("README", () => {
  it("states every retry default as the code defines it", () => {
    const rows = new Map(table("option").map(([k, d]) => [k!, d!]));
    for (const [key, value] of Object.entries(DEFAULT_RETRY)) {
      expect(rows.get(key), `retry option ${key}`).toBe(literal(value));
    }
  });

  it("states the toolkit defaults as the code defines them", () => {
    expect(readme).toContain(`| \`timeoutMs\` | \`${DEFAULT_TIMEOUT_MS}\` |`);
    expect(readme).toContain(`| \`errors.maxLength\` | \`${DEFAULT_MAX_LENGTH}\` |`);
    expect(readme).toContain(
      `\`{ failureThreshold: ${DEFAULT_BREAKER.failureThreshold}, halfOpenAfterMs: ${DEFAULT_BREAKER.halfOpenAfterMs}, enabled: ${DEFAULT_BREAKER.enabled} }\``,
    );
    expect(readme).toContain(
      `\`{ enabled: ${DEFAULT_RECONNECT.enabled}, minDelayMs: ${DEFAULT_RECONNECT.minDelayMs}, maxDelayMs: ${DEFAULT_RECONNECT.maxDelayMs} }\``,
    );
    expect(readme).toContain(`its last \`stderrLines\` (default \`${DEFAULT_STDERR_LINES}\`)`);
    expect(readme).toContain(`\`connectTimeoutMs\` (default \`${DEFAULT_CONNECT_TIMEOUT_MS}\``);
    expect(readme).toContain(`\`{ name: "${DEFAULT_CLIENT_INFO.name}", version: "${DEFAULT_CLIENT_INFO.version}" }\``);
  });

  it("lists every reason of the taxonomy with its defaults", () => {
    const rows = table("reason");
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
