import { rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Options } from "tsup";

/** The folders with a face for each runtime: index.ts is Node's, neutral.ts the one for elsewhere. */
const TWO_FACED = ["platform", "nodeOnly"].map((folder) => fileURLToPath(new URL(`./src/${folder}/index.js`, import.meta.url)));

/**
 * The runtime-neutral build (issue 36): the same sources, with src/platform/index.ts (the
 * runtime's primitives) and src/nodeOnly/index.ts (stdio, the listen probe, the Redis fleet)
 * resolved to their neutral.ts, so no `node:` module and no Node-only package is reached
 * (test/runtimes/worker.test.ts walks the output for one). package.json gives it to every
 * runtime but Node, Bun and Deno (the `node` export condition). The import is resolved before
 * it is matched, so `./index.js` from inside the folder is swapped too.
 */
const neutralPlatformPlugin = {
  name: "use-neutral-platform",
  setup(build: { onResolve(options: { filter: RegExp }, callback: (args: { path: string; importer: string }) => { path: string } | undefined): void }) {
    build.onResolve({ filter: /^\..*\/index\.js$/ }, (args) => {
      const file = resolve(dirname(args.importer), args.path);
      return TWO_FACED.includes(file) ? { path: file.replace(/index\.js$/, "neutral.ts") } : undefined;
    });
  },
};

const shared: Options = {
  sourcemap: true,
  // Both builds write into one folder (`--out-dir` sets it for both), so neither cleans it: one
  // build's clean would race the other's writes. The folder is emptied once, below.
  clean: false,
  // p-retry and its one dependency ship only as ESM; bundling them lets require() load the
  // CommonJS build on every Node 20, not only on 20.19+ where require(esm) works.
  noExternal: ["p-retry", "is-network-error"],
};

export default defineConfig((cli) => {
  rmSync(cli.outDir ?? "dist", { recursive: true, force: true });
  return [
    {
      ...shared,
      // `cli` is the `langchain-mcp-errors` bin (`doctor`); tsup keeps its shebang and makes it executable.
      // `server` is `langchain-mcp-errors/server`, for MCP servers: it reaches neither LangChain nor an SDK.
      entry: { index: "src/index.ts", agents: "src/agents.ts", server: "src/server/index.ts", cli: "src/cli/bin.ts" },
      format: ["esm", "cjs"],
      // Shared chunks for CommonJS too (ESM splits by default): without them each CommonJS entry
      // bundled its own copy of every module, so `require("langchain-mcp-errors/agents")` held a
      // second McpToolError class. The brand makes copies agree; one copy is still smaller.
      splitting: true,
      dts: true,
      target: "node20",
    },
    {
      ...shared,
      entry: { "neutral/index": "src/index.ts", "neutral/agents": "src/agents.ts", "neutral/server": "src/server/index.ts" },
      format: ["esm"],
      platform: "neutral",
      target: "es2022",
      splitting: true,
      dts: false,
      esbuildPlugins: [neutralPlatformPlugin],
      esbuildOptions(options) {
        options.chunkNames = "neutral/[name]-[hash]";
      },
    },
  ];
});
