/**
 * 10. Bundle size: the main entry as a bundler ships it, esbuild, minified, gzip -9, every
 * package left out (our own code only), for the runtime-neutral build (what a Worker or an edge
 * function gets) and the Node build; `ErrorHandler` alone, as a bundler tree-shakes the main
 * entry for an app that imports only it; beside the MCP SDK's client root entry measured the same
 * way, and the whole Worker of examples/worker (packages included) for scale. Sizes, not times:
 * one build each, the same on every run of one tree. Issue 45 retired issue 36's bound: the sizes
 * are reported without a verdict.
 */
import { gzipSync } from "node:zlib";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { BenchContext } from "../context.js";
import { fmt, type SectionResult } from "../model.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** As tsup.config.ts builds it: src/platform/index.ts and src/nodeOnly/index.ts resolved to their neutral.ts. */
const TWO_FACED = ["platform", "nodeOnly"].map((folder) => `${root}src/${folder}/index.js`);

interface Measured {
  bytes: number;
  gzip: number;
  /** Minified bytes by folder of src/, for our own entries. */
  rooms: Map<string, number>;
}

/** An entry file, or the source of an entry (resolved from the repository's root). */
type Entry = string | { contents: string };

async function measure(entry: Entry, how: { neutral: boolean; packages: "external" | "bundle"; conditions?: string[] }): Promise<Measured> {
  const result = await build({
    ...(typeof entry === "string" ? { entryPoints: [entry] } : { stdin: { contents: entry.contents, resolveDir: root, loader: "ts" as const, sourcefile: "entry.ts" } }),
    bundle: true,
    minify: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: how.neutral ? "browser" : "node",
    ...(how.conditions ? { conditions: how.conditions } : {}),
    ...(how.packages === "external" ? { packages: "external" as const } : { external: ["node:async_hooks"] }),
    outfile: "out.js",
    logLevel: "silent",
    plugins: how.neutral ? [{ name: "neutral", setup: (b) => b.onResolve({ filter: /^\..*\/index\.js$/ }, (args) => neutralFace(resolve(dirname(args.importer), args.path))) }] : [],
  });
  const code = result.outputFiles[0]!.contents;
  const rooms = new Map<string, number>();
  for (const [file, input] of Object.entries(Object.values(result.metafile.outputs)[0]!.inputs)) {
    const room = file.startsWith("src/") ? file.split("/").slice(1, -1).join("/") || "(root)" : "(packages)";
    rooms.set(room, (rooms.get(room) ?? 0) + input.bytesInOutput);
  }
  return { bytes: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength, rooms };
}

function neutralFace(file: string): { path: string } | undefined {
  return TWO_FACED.includes(file) ? { path: file.replace(/index\.js$/, "neutral.ts") } : undefined;
}

const kb = (bytes: number) => `${fmt(bytes / 1024)} KB`;

/** An app that uses `ErrorHandler` alone: what a bundler keeps of the main entry for it. */
const ERROR_HANDLER_ONLY = { contents: 'import { ErrorHandler } from "./src/index.js";\nconsole.log(ErrorHandler);\n' };

export async function bundleSize(_ctx: BenchContext): Promise<SectionResult> {
  const neutral = await measure(`${root}src/index.ts`, { neutral: true, packages: "external" });
  const node = await measure(`${root}src/index.ts`, { neutral: false, packages: "external" });
  const handler = await measure(ERROR_HANDLER_ONLY, { neutral: true, packages: "external" });
  const handlerWithPackages = await measure(ERROR_HANDLER_ONLY, { neutral: true, packages: "bundle" });
  const sdk = await measure(fileURLToPath(import.meta.resolve("@modelcontextprotocol/client")), { neutral: true, packages: "external" });
  const worker = await measure(`${root}examples/worker/worker.ts`, { neutral: true, packages: "bundle", conditions: ["workerd", "worker", "browser"] });
  const total = [...neutral.rooms.values()].reduce((a, b) => a + b, 0);
  const rooms = [...neutral.rooms].filter(([room]) => room !== "(packages)").sort((a, b) => b[1] - a[1]);
  return {
    title: "Bundle size of the main entry",
    method:
      "esbuild bundles each entry minified (ESM), packages left out, and the output is gzipped at level 9: our own code as a bundler adds it to an app. The neutral build is what Workers, edge functions and browsers get; the Node build adds stdio, the listen probe, config files and Redis shared state (loaded on demand). " +
      "`ErrorHandler` alone is a two-line app, `import { ErrorHandler } from \"<main entry>\"; console.log(ErrorHandler)`, bundled for the neutral build: what tree-shaking keeps for a user of the error model alone (the package declares `sideEffects: false`), our own code, then with its packages. " +
      "The SDK's client root is measured the same way. The Worker row bundles examples/worker with every package, as wrangler would. Sizes only: issue 45 retired the bound (issue 36's 45 KB).",
    tables: [
      {
        headers: ["entry", "minified", "min + gzip"],
        rows: [
          ["langchain-mcp-errors, runtime-neutral", kb(neutral.bytes), kb(neutral.gzip)],
          ["langchain-mcp-errors, Node", kb(node.bytes), kb(node.gzip)],
          ["`ErrorHandler` alone, tree-shaken, our own code", kb(handler.bytes), kb(handler.gzip)],
          ["`ErrorHandler` alone, tree-shaken, with its packages", kb(handlerWithPackages.bytes), kb(handlerWithPackages.gzip)],
          ["@modelcontextprotocol/client (root)", kb(sdk.bytes), kb(sdk.gzip)],
          ["the Worker of examples/worker, every package", kb(worker.bytes), kb(worker.gzip)],
        ],
      },
      {
        headers: ["room of src/ (neutral build)", "minified", "share"],
        rows: rooms.map(([room, bytes]) => [room, kb(bytes), `${fmt((100 * bytes) / total, 0)}%`]),
      },
    ],
    ratios: [],
    goals: [],
    notes: [],
  };
}
