/** The messages between test/fleet/fleet.ts and each worker process. */
import type { McpToolkitConfig, SharedStateOptions } from "../../src/config/schema.js";

export interface SharedSetup {
  socket: string;
  client: "ioredis" | "node-redis";
  options?: Omit<SharedStateOptions, "redis">;
}

export type Command =
  | { type: "connect"; url: string; config: Partial<McpToolkitConfig>; shared?: SharedSetup }
  /** Start at the wall-clock `startAt` (the same moment for every worker), then call every `paceMs` for `calls` calls or until `untilMs`. */
  | { type: "run"; startAt: number; paceMs: number; calls?: number; untilMs?: number }
  | { type: "close" };

/** As sent: with an `id` that the reply repeats, so a reply answers only the command that asked. */
export type WorkerCommand = Command & { id: number };

/** One call: when it started and ended (wall clock, ms) and `ok` or the McpToolError's reason. */
export interface CallRecord {
  at: number;
  end: number;
  outcome: string;
}

export type WorkerReply =
  /** Sent once, unasked (id 0), when the worker's modules have loaded and it listens for commands. */
  | { type: "loaded"; id: 0 }
  | { type: "ready"; id: number }
  | { type: "results"; id: number; calls: CallRecord[]; counts: Record<string, number> }
  | { type: "closed"; id: number }
  | { type: "failed"; id: number; message: string };
