/**
 * npm's `prepare`: `npm install` in a clone, and npm installing this package from a git URL, run
 * it. It builds dist/ with tsup (ESM, CommonJS and the declarations), so that the package and its
 * `langchain-mcp-errors` bin work straight from a checkout.
 *
 * A dist/ newer than everything it is built from is kept: `npx langchain-mcp-errors` in a clone
 * runs `prepare` again (npm links the package into its own cache), and a rebuild there would cost
 * most of a minute for nothing. Without tsup (`npm install --omit=dev`) nothing can be built; that
 * is said, and the install goes on.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const OUTPUTS = ["index", "agents"].flatMap((entry) => [".js", ".cjs", ".d.ts", ".d.cts"].map((ext) => join(root, "dist", entry + ext))).concat(join(root, "dist", "cli.js"), join(root, "dist", "neutral", "index.js"));
const INPUTS = ["src", "package.json", "tsup.config.ts", "tsconfig.json"].map((path) => join(root, path));

/** The latest modification time under `path`. */
function newest(path) {
  const stat = statSync(path);
  return stat.isDirectory() ? Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name)))) : stat.mtimeMs;
}

if (OUTPUTS.every((file) => existsSync(file))) {
  const built = Math.min(...OUTPUTS.map((file) => statSync(file).mtimeMs));
  if (built > Math.max(...INPUTS.filter((path) => existsSync(path)).map(newest))) {
    console.log("langchain-mcp-errors: dist/ is newer than its sources; not rebuilt (`npm run build` rebuilds it).");
    process.exit(0);
  }
}

let tsup;
try {
  tsup = join(createRequire(import.meta.url).resolve("tsup/package.json"), "..", "dist", "cli-default.js");
} catch {
  console.log("langchain-mcp-errors: tsup is not installed (devDependencies omitted?), so dist/ was not built; `npm install` then `npm run build` builds it.");
  process.exit(0);
}
const started = Date.now();
console.log("langchain-mcp-errors: building dist/ (JavaScript, then the declarations, which take most of the time)…");
const run = spawnSync(process.execPath, [tsup, "--silent"], { cwd: root, stdio: "inherit" });
if (run.status !== 0) {
  console.error(`langchain-mcp-errors: the build failed (${run.error?.message ?? `exit code ${run.status ?? run.signal}`}); \`npm run build\` shows why.`);
  process.exit(1);
}
console.log(`langchain-mcp-errors: built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
