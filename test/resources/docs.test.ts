/** The `resources` option table of docs/resources-and-prompts.md states the schema's defaults, row for row. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ResourceOptionsSchema } from "../../src/config/resources.js";
import { DEFAULT_RESOURCE_OPTIONS } from "../../src/resources/McpResources.js";

const page = readFileSync(new URL("../../docs/resources-and-prompts.md", import.meta.url), "utf8").split("\n");

describe("docs/resources-and-prompts.md", () => {
  it("lists every `resources` option with the default the schema states", () => {
    const start = page.findIndex((l) => l.startsWith("| `resources` option |"));
    expect(start).toBeGreaterThan(0);
    const rows = page.slice(start + 2).filter((_, i, all) => all.slice(0, i + 1).every((l) => l.startsWith("|")));
    const documented = Object.fromEntries(rows.map((r) => r.split("|").map((c) => c.trim())).map(([, name, value]) => [name!.replace(/`/g, ""), value!.replace(/`/g, "")]));
    expect(Object.keys(documented).sort()).toEqual(Object.keys(ResourceOptionsSchema.shape).sort());
    for (const [name, value] of Object.entries(DEFAULT_RESOURCE_OPTIONS)) expect(documented[name], name).toBe(String(value));
  });
});
