/**
 * One process of a simulated fleet, driven over IPC by test/fleet/fleet.ts: it connects an
 * McpToolkit (with or without shared state), says it is ready, starts calling at the agreed
 * moment, and reports every call's outcome and time.
 */
import { Redis } from "ioredis";
import { createClient } from "redis";
import { McpToolError, McpToolkit, type McpToolkitConfig } from "../../src/index.js";
import type { RedisClientLike } from "../../src/config/schema.js";
import type { CallRecord, WorkerCommand, WorkerReply } from "./protocol.js";

let toolkit: McpToolkit | undefined;
let closeRedis: (() => Promise<unknown>) | undefined;
const counts: Record<string, number> = {};

const reply = (message: WorkerReply) => process.send!(message);

/** Closes the toolkit and the Redis client of the last run, if any. */
async function closeAll(): Promise<void> {
  await toolkit?.close();
  await Promise.resolve(closeRedis?.()).catch(() => undefined);
  toolkit = undefined;
  closeRedis = undefined;
  for (const key of Object.keys(counts)) delete counts[key];
}

async function connect(command: Extract<WorkerCommand, { type: "connect" }>): Promise<void> {
  await closeAll();
  let available: Promise<void> = Promise.resolve();
  let redis: RedisClientLike | undefined;
  if (command.shared) {
    if (command.shared.client === "ioredis") {
      const client = new Redis({ path: command.shared.socket, lazyConnect: false });
      client.on("error", () => undefined);
      closeRedis = () => Promise.resolve(client.disconnect());
      redis = client;
    } else {
      const client = createClient({ socket: { path: command.shared.socket, reconnectStrategy: () => 100 } });
      client.on("error", () => undefined);
      await client.connect();
      closeRedis = async () => client.destroy();
      redis = client;
    }
  }
  let ready: () => void = () => undefined;
  if (redis) available = new Promise((resolve) => (ready = resolve));
  const config: McpToolkitConfig = {
    servers: { upstream: { transport: "http", url: command.url } },
    errors: { mode: "throw" },
    ...command.config,
    ...(redis ? { sharedState: { redis, ...command.shared!.options } } : {}),
    onEvent: (event) => {
      counts[event.type] = (counts[event.type] ?? 0) + 1;
      if (event.type === "shared_state") counts[`shared_state:${event.status}`] = (counts[`shared_state:${event.status}`] ?? 0) + 1;
      if (event.type === "shared_state" && event.status === "available") ready();
    },
  };
  toolkit = await McpToolkit.connect(config);
  // The ready barrier includes a first snapshot, so no worker starts without the fleet's view.
  await available;
  reply({ type: "ready", id: command.id });
}

async function run(command: Extract<WorkerCommand, { type: "run" }>): Promise<void> {
  const tool = toolkit!.getTool("echo")!;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, command.startAt - Date.now())));
  const calls: CallRecord[] = [];
  for (let i = 0; command.calls === undefined || i < command.calls; i++) {
    if (command.untilMs !== undefined && Date.now() >= command.untilMs) break;
    const at = Date.now();
    try {
      await tool.invoke({ text: i % 5 === 4 ? "fail" : "ok" });
      calls.push({ at, end: Date.now(), outcome: "ok" });
    } catch (error) {
      calls.push({ at, end: Date.now(), outcome: error instanceof McpToolError ? error.reason : "thrown" });
    }
    await new Promise((resolve) => setTimeout(resolve, command.paceMs));
  }
  reply({ type: "results", id: command.id, calls, counts: { ...counts } });
}

process.on("message", (command: WorkerCommand) => {
  const done = (error: unknown) => reply({ type: "failed", id: command.id, message: String((error as Error)?.stack ?? error) });
  if (command.type === "connect") connect(command).catch(done);
  else if (command.type === "run") run(command).catch(done);
  else
    void (async () => {
      await closeAll();
      reply({ type: "closed", id: command.id });
      process.exit(0);
    })();
});
// The parent's death ends the worker too: a fleet run never leaves a process behind.
process.on("disconnect", () => process.exit(0));
// Every module above has loaded and the worker listens: the fleet starts counting from here.
reply({ type: "loaded", id: 0 });
