/**
 * What the runtime cannot do, refused at `connect` with the option that asks for it: outside Node
 * (and Bun, Deno), no stdio server and no shared state on Redis (src/platform/types.ts).
 */
import { platform } from "../platform/index.js";
import type { McpToolkitConfig } from "./schema.js";
import { McpConfigError, validateConfig } from "./validate.js";

const ELSEWHERE = "which needs Node (or Bun, Deno); this runtime loaded the runtime-neutral build of langchain-mcp-errors";

/** `validateConfig`, then what this runtime cannot serve: the check `connect` runs first. */
export function validateForRuntime(config: unknown): asserts config is McpToolkitConfig {
  validateConfig(config);
  checkRuntime(config);
}

/** The fleet's module (Redis shared state), where the runtime has it: `checkRuntime` refused `sharedState` elsewhere. */
export function loadFleet(): Promise<typeof import("../fleet/FleetState.js")> | undefined {
  return platform.fleet?.();
}

function checkRuntime(config: McpToolkitConfig): void {
  if (!platform.stdioTransport) {
    for (const [name, server] of Object.entries(config.servers)) {
      if ("command" in server) throw new McpConfigError(`servers.${name}.command`, `a stdio server starts a process, ${ELSEWHERE}: reach this server over HTTP (transport "http") here`);
    }
  }
  if (config.sharedState && !platform.fleet) throw new McpConfigError("sharedState", `shared state on Redis, ${ELSEWHERE}: leave it out here, and each instance keeps its own`);
}
