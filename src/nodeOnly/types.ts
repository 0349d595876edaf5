/**
 * What the Node build adds above the floor (src/platform/): stdio servers, the listen probe and
 * the Redis fleet. Each is the library's own code that needs Node's modules, so platform/, which
 * imports nothing of ours, cannot hold it; this room gathers it, and the toolkit passes it down.
 *
 * Like platform/, it has two faces: index.ts on Node, Bun and Deno, and neutral.ts, which the
 * runtime-neutral build (tsup.config.ts) takes instead and which has none of it; runtimeCheck.ts
 * refuses, at `connect`, an option that needs what is missing.
 */
import type { NodeTransports } from "../mcp/transport/nodeTransports.js";

export interface NodeOnly extends NodeTransports {
  /** Shared state on Redis (the fleet): loaded only when configured. */
  readonly fleet?: () => Promise<typeof import("../fleet/FleetState.js")>;
}
