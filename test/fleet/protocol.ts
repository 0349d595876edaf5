/** The messages between test/fleet/fleet.ts and each worker process. */
import type { McpToolkitConfig, SharedStateOptions } from "../../src/config/schema.js";

export interface SharedSetup {
  socket: string;
  client: "ioredis" | "node-redis";
  options?: Omit<SharedStateOptions, "redis">;
}

export type WorkerCommand =
  | { type: "connect"; url: string; config: Partial<McpToolkitConfig>; shared?: SharedSetup }
  /** Start at the wall-clock `startAt` (the same moment for every worker), then call every `paceMs` for `calls` calls or until `untilMs`. */
  | { type: "run"; startAt: number; paceMs: number; calls?: number; untilMs?: number }
  | { type: "close" };

/** One call: when it started and ended (wall clock, ms) and `ok` or the McpToolError's reason. */
export interface CallRecord {
  at: number;
  end: number;
  outcome: string;
}

export type WorkerReply =
  | { type: "ready" }
  | { type: "results"; calls: CallRecord[]; counts: Record<string, number> }
  | { type: "closed" }
  | { type: "failed"; message: string };
