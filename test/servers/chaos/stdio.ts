import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ENTRY = fileURLToPath(new URL("./stdio-entry.ts", import.meta.url));

/** The command that starts the stdio chaos server as a child process, through tsx. */
export function chaosStdioCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: ["--import", "tsx", ENTRY] };
}

/**
 * The stdio chaos server bundled into one plain JS file in `dir`, so a restart after an
 * injected exit costs a Node start (~0.2 s), not a TypeScript loader start (1–3 s on a loaded
 * machine), and stays far inside a call's timeout. esbuild comes with tsx.
 */
export async function bundledChaosStdioCommand(dir: string): Promise<{ command: string; args: string[] }> {
  const { build, stop } = await import("esbuild");
  const outfile = join(dir, "chaos-stdio-server.mjs");
  await build({
    entryPoints: [ENTRY],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "silent",
    // Bundled CommonJS dependencies may call require().
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  // The JS API keeps a service process running; leave none behind.
  await stop();
  return { command: process.execPath, args: [outfile] };
}
