/**
 * docs/shared-state.md's shared state table, row by row against the one schema, as test/docs.test.ts
 * does for the other option tables.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defaultsOf } from "../../src/config/index.js";
import { SharedStateOptionsSchema } from "../../src/config/schema.js";
import { literal } from "../config/literal.js";

const page = readFileSync(new URL("../../docs/shared-state.md", import.meta.url), "utf8");

function rows(firstHeader: string): [string, string][] {
  const lines = page.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`| ${firstHeader} |`));
  expect(start, `a docs/shared-state.md table starting with '${firstHeader}'`).toBeGreaterThanOrEqual(0);
  const out: [string, string][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const [name, cell] = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    out.push([/^`([^`]+)`/.exec(name!)?.[1] ?? name!, cell!]);
  }
  return out;
}

describe("docs/shared-state.md: the 'shared state option' table", () => {
  const table = rows("shared state option");
  const defaults: Record<string, unknown> = defaultsOf(SharedStateOptionsSchema);

  it("has one row for each option in the schema, and no other", () => {
    expect(table.map(([name]) => name).sort()).toEqual(Object.keys(SharedStateOptionsSchema.shape).sort());
  });

  it.each(table)("states the default of %s as the schema does", (name, cell) => {
    if (Object.hasOwn(defaults, name)) expect(cell).toBe(`\`${literal(defaults[name])}\``);
    else expect(cell).not.toMatch(/^`[^`]*`$/);
  });

  it("shows a fleet table with real numbers", () => {
    expect(page).not.toContain("FLEET_TABLE");
    expect(page).toMatch(/\| shared \| \d+ \(0\.\d+×\) \|/);
  });
});
