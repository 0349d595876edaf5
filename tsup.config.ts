import { defineConfig } from "tsup";

export default defineConfig({
  // `cli` is the `langchain-mcp-errors` bin (`doctor`); tsup keeps its shebang and makes it executable.
  // `server` is `langchain-mcp-errors/server`, for MCP servers: it reaches neither LangChain nor an SDK.
  entry: { index: "src/index.ts", agents: "src/agents.ts", server: "src/server/index.ts", cli: "src/cli/bin.ts" },
  format: ["esm", "cjs"],
  // Shared chunks for CommonJS too (ESM splits by default): without them each CommonJS entry
  // bundled its own copy of every module, so `require("langchain-mcp-errors/agents")` held a
  // second McpToolError class. The brand makes copies agree; one copy is still smaller.
  splitting: true,
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  // p-retry and its one dependency ship only as ESM; bundling them lets require() load the
  // CommonJS build on every Node 20, not only on 20.19+ where require(esm) works.
  noExternal: ["p-retry", "is-network-error"],
});
