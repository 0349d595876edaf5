/**
 * The package as it ships, built once per test file into a scratch folder (JavaScript only, some
 * 7 s), so the runtime suites read what a user's bundler would, not the sources.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build as esbuild } from "esbuild";

const exec = promisify(execFile);
export const root = fileURLToPath(new URL("../..", import.meta.url));

/** Builds dist/ into a scratch folder; returns it and a clean-up. */
export async function buildPackage(): Promise<{ dist: string; remove: () => Promise<void> }> {
  const tmpRoot = join(root, "test", ".tmp");
  await mkdir(tmpRoot, { recursive: true });
  const dir = await mkdtemp(join(tmpRoot, "runtimes-"));
  const dist = join(dir, "dist");
  await exec(process.execPath, [join(root, "node_modules", "tsup", "dist", "cli-default.js"), "--no-dts", "--silent", "--out-dir", dist], { cwd: root, timeout: 120_000 });
  return { dist, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Bundles `entry` as wrangler does for workerd (esbuild, the `workerd`/`worker`/`browser`
 * conditions, ESM), with the package taken from `dist` as its export conditions give it to a
 * Worker: the runtime-neutral build. The entry imports the package's sources as the examples do
 * (`src/index.js`, so tsc checks it), or by its name; either resolves to the build.
 */
export async function bundleForWorkerd(entry: string, dist: string, outfile: string): Promise<{ bytes: number; inputs: string[] }> {
  return bundle(entry, dist, outfile, { format: "esm", conditions: ["workerd", "worker", "browser"] });
}

/** Bundles `entry` as Next.js does for a Vercel Edge function: a script (no modules), the `edge-light` condition. */
export async function bundleForEdge(entry: string, dist: string, outfile: string): Promise<{ bytes: number; inputs: string[] }> {
  return bundle(entry, dist, outfile, { format: "iife", conditions: ["edge-light", "worker", "browser"] });
}

async function bundle(entry: string, dist: string, outfile: string, how: { format: "esm" | "iife"; conditions: string[] }): Promise<{ bytes: number; inputs: string[] }> {
  const result = await esbuild({
    // A Worker with nodejs_compat or nodejs_als imports these from workerd itself.
    external: ["node:async_hooks"],
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: how.format,
    platform: "browser",
    conditions: how.conditions,
    target: "es2022",
    minify: true,
    metafile: true,
    logLevel: "silent",
    plugins: [
      {
        name: "package-under-test",
        setup(b) {
          b.onResolve({ filter: /^langchain-mcp-errors(\/.*)?$/ }, (args) => ({ path: join(dist, "neutral", `${args.path.slice("langchain-mcp-errors/".length) || "index"}.js`) }));
          b.onResolve({ filter: /\/src\/(index|agents)\.js$/ }, (args) => ({ path: join(dist, "neutral", args.path.endsWith("agents.js") ? "agents.js" : "index.js") }));
        },
      },
    ],
  });
  const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined);
  return { bytes: output?.bytes ?? 0, inputs: Object.keys(result.metafile.inputs) };
}
