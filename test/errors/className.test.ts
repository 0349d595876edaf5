/**
 * Issue 35: the built package printed its error as `_McpToolError` (`constructor.name`,
 * `util.inspect`), because esbuild, which tsup runs, renames a class that names itself in its
 * own body. Built here the way tsup builds it (esbuild, node20, both formats) into a temp dir.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { inspect } from "node:util";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";

const dir = await mkdtemp(join(tmpdir(), "mcp-error-name-"));
afterAll(() => rm(dir, { recursive: true, force: true }));

type Built = typeof import("../../src/errors/McpToolError.js");

async function built(format: "esm" | "cjs"): Promise<Built> {
  const out = await build({ entryPoints: [join(import.meta.dirname, "../../src/errors/McpToolError.ts")], bundle: true, format, platform: "node", target: "node20", write: false });
  const file = join(dir, format === "esm" ? "error.mjs" : "error.cjs");
  await writeFile(file, out.outputFiles[0]!.text);
  return format === "esm" ? ((await import(pathToFileURL(file).href)) as Built) : (createRequire(file)(file) as Built);
}

describe.each(["esm", "cjs"] as const)("the %s build's McpToolError", (format) => {
  it("is named McpToolError by its class, its name, util.inspect and its copies", async () => {
    const { McpToolError } = await built(format);
    const error = McpToolError.of("tool_error", "boom");
    expect(McpToolError.name).toBe("McpToolError");
    expect(error.constructor.name).toBe("McpToolError");
    expect(error.name).toBe("McpToolError");
    expect(inspect(error).split("\n")[0]).toMatch(/^\[?McpToolError: boom/);
    expect(inspect(error.with({ attempts: 2 }))).not.toContain("_McpToolError");
    expect(error.with({ attempts: 2 })).toBeInstanceOf(McpToolError);
  });
});

describe("the built McpToolkit", () => {
  it("is named McpToolkit, not esbuild's _McpToolkit", async () => {
    const out = await build({ entryPoints: [join(import.meta.dirname, "../../src/langchain/McpToolkit.ts")], bundle: true, format: "esm", platform: "node", target: "node20", write: false, packages: "external" });
    // Written beside the sources so its packages resolve from this repository's node_modules.
    const file = join(import.meta.dirname, `.toolkit-name-${process.pid}.mjs`);
    await writeFile(file, out.outputFiles[0]!.text);
    try {
      const { McpToolkit } = (await import(pathToFileURL(file).href)) as typeof import("../../src/langchain/McpToolkit.js");
      expect(McpToolkit.name).toBe("McpToolkit");
    } finally {
      await rm(file, { force: true });
    }
  });
});
