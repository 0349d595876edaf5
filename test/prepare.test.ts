/**
 * npm's `prepare` (scripts/prepare.mjs), which `npm install` in a clone and an install from a git
 * URL run: it builds dist/ when dist/ is missing or older than its sources, keeps a fresh one, and
 * never fails an install for want of tsup. Run on a copy of the script in a scratch package
 * outside this repository, where no tsup can be found, so no real build is started.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

const exec = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));
const OUTPUTS = ["index.js", "index.cjs", "index.d.ts", "index.d.cts", "agents.js", "agents.cjs", "agents.d.ts", "agents.d.cts", "cli.js", "neutral/index.js"];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A package with the script, its sources last changed at `sourcesAt`, and dist/ built at `builtAt` (or none). */
async function scratchPackage(sourcesAt: Date, builtAt?: Date): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "prepare-"));
  dirs.push(dir);
  await mkdir(join(dir, "scripts"));
  await copyFile(join(root, "scripts", "prepare.mjs"), join(dir, "scripts", "prepare.mjs"));
  await mkdir(join(dir, "src", "cli"), { recursive: true });
  const sources = ["package.json", "tsup.config.ts", "tsconfig.json", "src/index.ts", "src/cli/bin.ts"];
  for (const file of sources) {
    await writeFile(join(dir, file), file === "package.json" ? JSON.stringify({ name: "scratch", type: "module" }) : "export {};\n");
    await utimes(join(dir, file), sourcesAt, sourcesAt);
  }
  if (builtAt) {
    await mkdir(join(dir, "dist", "neutral"), { recursive: true });
    for (const file of OUTPUTS) {
      await writeFile(join(dir, "dist", file), "");
      await utimes(join(dir, "dist", file), builtAt, builtAt);
    }
  }
  return dir;
}

async function prepare(dir: string): Promise<string> {
  const env = { ...process.env };
  delete env.NODE_PATH; // tsup must not be found from here
  const { stdout } = await exec(process.execPath, [join(dir, "scripts", "prepare.mjs")], { cwd: dir, env, timeout: 30_000 });
  return stdout;
}

const earlier = new Date("2026-01-01T00:00:00Z");
const later = new Date("2026-01-02T00:00:00Z");

describe("npm's prepare script", () => {
  it("is what `prepare` runs", async () => {
    const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(manifest.scripts.prepare).toBe("node scripts/prepare.mjs");
  });

  it("keeps a dist/ newer than every source (npx in a clone runs prepare again)", async () => {
    const dir = await scratchPackage(earlier, later);
    expect(await prepare(dir)).toContain("dist/ is newer than its sources; not rebuilt");
  });

  it.each([
    ["a source changed after the build", later, earlier],
    ["no dist/ yet", earlier, undefined],
  ])("builds when %s, and without tsup says so and lets the install go on", async (_, sourcesAt, builtAt) => {
    const dir = await scratchPackage(sourcesAt, builtAt);
    expect(await prepare(dir)).toContain("tsup is not installed (devDependencies omitted?), so dist/ was not built");
  });

  it("builds when one output is missing (a build without declarations)", async () => {
    const dir = await scratchPackage(earlier, later);
    await rm(join(dir, "dist", "index.d.cts"));
    expect(await prepare(dir)).toContain("tsup is not installed");
  });
});
