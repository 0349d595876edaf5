/**
 * What the runtime cannot do, refused at `connect` with the option that asks for it: outside Node
 * (and Bun, Deno), no stdio server and no shared state on Redis (see types.ts).
 */
import type { McpToolkitConfig } from "../config/schema.js";
import { McpConfigError, validateConfig } from "../config/validate.js";
import { nodeOnly } from "./index.js";

const ELSEWHERE = "which needs Node (or Bun, Deno); this runtime loaded the runtime-neutral build of langchain-mcp-errors";

/** `validateConfig`, then what this runtime cannot serve: the check `connect` runs first. */
export function validateForRuntime(config: unknown): asserts config is McpToolkitConfig {
  validateConfig(config);
  checkRuntime(config);
}

function checkRuntime(config: McpToolkitConfig): void {
  if (!nodeOnly.stdioTransport) {
    for (const [name, server] of Object.entries(config.servers)) {
      if ("command" in server) throw new McpConfigError(`servers.${name}.command`, `a stdio server starts a process, ${ELSEWHERE}: reach this server over HTTP (transport "http") here`);
    }
  }
  if (config.sharedState && !nodeOnly.fleet) throw new McpConfigError("sharedState", `shared state on Redis, ${ELSEWHERE}: leave it out here, and each instance keeps its own`);
}
