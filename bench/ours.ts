/**
 * Our library as the bench measures it. By default it is built the way the package ships
 * (tsup, ESM, node20) into node_modules/.cache, so the figures are those of shipped code,
 * as the adapters' are. `--src` runs src/ through tsx instead: tsx compiles with esbuild's
 * keepNames, which wraps every closure our hot path creates in a `__name()` helper
 * (an Object.defineProperty each), a cost the shipped build does not have.
 */
import { mkdirSync, rmdirSync, rmSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import type * as OursModule from "../src/index.js";

export type Ours = typeof OursModule;

export interface LoadedOurs {
  module: Ours;
  /** How the code was loaded, for the report. */
  origin: string;
  /** The module's file, for a child process that must load the same code. */
  path: string;
}

const root = new URL("..", import.meta.url);

export async function loadOurs(fromSource: boolean): Promise<LoadedOurs> {
  if (fromSource) return { module: await import("../src/index.js"), origin: "src/ run through tsx (esbuild keepNames adds __name helpers)", path: fileURLToPath(new URL("src/index.ts", root)) };
  const outDir = fileURLToPath(new URL(`node_modules/.cache/langchain-mcp-errors-bench/${process.pid}/`, root));
  mkdirSync(outDir, { recursive: true });
  const { build } = await import("tsup");
  // tsup.config.ts's settings for the ESM entry, without declaration files.
  await build({
    entry: { index: fileURLToPath(new URL("src/index.ts", root)) },
    format: ["esm"],
    target: "node20",
    outDir,
    dts: false,
    sourcemap: false,
    clean: true,
    silent: true,
    config: false,
    tsconfig: fileURLToPath(new URL("tsconfig.json", root)),
  });
  const module = (await import(pathToFileURL(`${outDir}index.js`).href)) as Ours;
  return { module, origin: "src/ built with tsup as the package ships (ESM, node20)", path: `${outDir}index.js` };
}

/** Removes the build (it is only needed while the bench runs). Synchronous, so the watchdog can call it on its way out. */
export function removeBuild(): void {
  const base = new URL("node_modules/.cache/langchain-mcp-errors-bench/", root);
  rmSync(new URL(`${process.pid}/`, base), { recursive: true, force: true });
  // The shared folder goes too once no other run is using it.
  try {
    rmdirSync(base);
  } catch {
    // Another run's build is still there.
  }
}
