/** The option tables of docs/resources-and-prompts.md state the defaults the code has, row for row. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ResourceOptionsSchema } from "../../src/config/resources.js";
import { DEFAULT_RESOURCE_OPTIONS } from "../../src/resources/McpResources.js";
import { DEFAULT_PIN_OPTIONS } from "../../src/resources/ResourcePins.js";
import { DEFAULT_NAME_MATCHES } from "../../src/resources/retriever.js";

const text = readFileSync(new URL("../../docs/resources-and-prompts.md", import.meta.url), "utf8");
const page = text.split("\n");

/** The rows of the table whose first header is `first`, as { name: default } with the backquotes dropped. */
function tableOf(first: string): Record<string, string> {
  const start = page.findIndex((l) => l.startsWith(`| ${first} |`));
  expect(start, first).toBeGreaterThan(0);
  const rows = page.slice(start + 2).filter((_, i, all) => all.slice(0, i + 1).every((l) => l.startsWith("|")));
  return Object.fromEntries(rows.map((r) => r.split("|").map((c) => c.trim())).map(([, name, value]) => [name!.replace(/`/g, ""), value!.replace(/`/g, "")]));
}

describe("docs/resources-and-prompts.md", () => {
  it("lists every `resources` option with the default the schema states", () => {
    const documented = tableOf("`resources` option");
    expect(Object.keys(documented).sort()).toEqual(Object.keys(ResourceOptionsSchema.shape).sort());
    for (const [name, value] of Object.entries(DEFAULT_RESOURCE_OPTIONS)) expect(documented[name], name).toBe(String(value));
  });

  it("lists every option of the pinned resources with its default", () => {
    const documented = tableOf("pinned resources option");
    expect(Object.keys(documented).sort()).toEqual(["resources", ...Object.keys(DEFAULT_PIN_OPTIONS)].sort());
    expect(documented.resources).toBe("(required)");
    for (const [name, value] of Object.entries(DEFAULT_PIN_OPTIONS)) expect(documented[name], name).toBe(String(value));
  });

  it("states the retriever's defaults", () => {
    expect(text).toContain(`the \`k\` (\`${DEFAULT_NAME_MATCHES}\`) resources`);
    expect(text).toContain('no Document for it (`missing: "skip"`, the default)');
  });
});
