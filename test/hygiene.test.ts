/**
 * The package as npm would publish it passes the two checks users' tools run: publint (the
 * manifest, `exports`, `bin` and the files they point to) and Are The Types Wrong (types that
 * resolve for ESM and CommonJS importers of both entry points). Built with declarations into a
 * scratch copy of the package; both tools run offline from devDependencies.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const exec = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));
const tmpRoot = join(root, "test", ".tmp");
let dir = "";
let manifest: Record<string, unknown> = {};

/** What npm publishes of the manifest: everything but the development-only fields. */
const PUBLISHED = ["name", "version", "description", "license", "type", "engines", "main", "module", "types", "typesVersions", "bin", "exports", "files", "sideEffects", "dependencies", "peerDependencies", "peerDependenciesMeta"];

describe("the published package", () => {
  beforeAll(async () => {
    await mkdir(tmpRoot, { recursive: true });
    dir = await mkdtemp(join(tmpRoot, "hygiene-"));
    // Declarations included (attw reads them): the slowest step, over a minute on two busy cores.
    await exec("npx", ["tsup", "--out-dir", join(dir, "dist")], { cwd: root, timeout: 240_000 });
    const full = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as Record<string, unknown>;
    manifest = Object.fromEntries(PUBLISHED.filter((k) => k in full).map((k) => [k, full[k]]));
    await writeFile(join(dir, "package.json"), JSON.stringify(manifest, null, 2));
    await copyFile(join(root, "README.md"), join(dir, "README.md"));
  }, 260_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    await rmdir(tmpRoot).catch(() => undefined);
  });

  it("passes publint with no error, warning or suggestion", async () => {
    const { messages, pkg } = await publint({ pkgDir: dir, level: "suggestion", strict: true, pack: "npm" });
    expect(messages.map((m) => `${m.type}: ${formatMessage(m, pkg) ?? m.code}`)).toEqual([]);
  }, 60_000);

  it("has types that resolve for ESM and CommonJS importers of every entry point (attw, strict profile)", async () => {
    // The strict profile checks node10 (which sees ./agents only through `typesVersions`),
    // node16 from CommonJS and from ESM, and bundlers. `--no-definitely-typed` keeps it offline.
    const run = await exec("npx", ["attw", "--pack", dir, "--format", "json", "--no-definitely-typed", "--entrypoints", ".", "./agents", "./server"], { cwd: root, timeout: 120_000 }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }),
    );
    const result = JSON.parse(run.stdout) as { analysis: { problems: unknown[]; entrypoints: Record<string, { resolutions: Record<string, { resolution?: { fileName?: string } }> }> } };
    expect(result.analysis.problems).toEqual([]);
    for (const entry of [".", "./agents", "./server"]) {
      const resolutions = result.analysis.entrypoints[entry]?.resolutions ?? {};
      expect(resolutions["node16-cjs"]?.resolution?.fileName, `${entry} from CommonJS`).toMatch(/\.d\.cts$/);
      expect(resolutions["node16-esm"]?.resolution?.fileName, `${entry} from ESM`).toMatch(/\.d\.ts$/);
    }
  }, 150_000);

  it("ships a bin that runs: `langchain-mcp-errors` prints its usage", async () => {
    const bin = (manifest.bin as Record<string, string>)["langchain-mcp-errors"]!;
    const { stdout } = await exec(process.execPath, [join(dir, bin), "--help"], { cwd: dir, timeout: 30_000 });
    expect(stdout).toContain("Usage: langchain-mcp-errors doctor");
    expect(await readFile(join(dir, bin), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
  }, 60_000);
});
