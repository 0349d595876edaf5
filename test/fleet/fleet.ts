/**
 * A fleet of worker processes (test/fleet/worker.ts) for the tests and `npm run fleet`. Every
 * worker is a child of this process, killed by `close()` whatever state it is in.
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { CallRecord, Command, SharedSetup, WorkerReply } from "./protocol.js";
import type { McpToolkitConfig } from "../../src/config/schema.js";

const entry = fileURLToPath(new URL("./worker.ts", import.meta.url));

export interface WorkerResult {
  calls: CallRecord[];
  counts: Record<string, number>;
}

export class Fleet {
  private readonly workers: ChildProcess[] = [];
  /** Every worker has loaded its modules and listens (or one exited first: rejected). */
  private readonly loaded: Promise<unknown>;
  private commands = 0;
  /** Milliseconds from the first fork until every worker had loaded (see {@link start}). */
  startMs = 0;

  private constructor(private readonly dir: string, bundle: string, readonly size: number) {
    for (let i = 0; i < size; i++) this.workers.push(fork(bundle, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] }));
    // Listened for at once: the worker says it once, as soon as it can.
    this.loaded = Promise.all(this.workers.map((w) => this.reply(w, 0, "loaded")));
  }

  /**
   * Bundles the worker once and starts `size` copies, resolving once every one has loaded and
   * listens, so that a test's first command does not wait for (nor count) the processes' start.
   * `startMs` says how long that took: loading the bundle is most of a worker's CPU, so it is
   * the measure of this machine's speed now that the fleet tests scale their limits by. A bundle
   * starts in a fifth of the CPU time that tsx needs to compile the sources in every process,
   * which on 2 cores decides whether 50 workers start in seconds or in minutes.
   */
  static async start(size: number): Promise<Fleet> {
    const dir = mkdtempSync(join(tmpdir(), "mcp-fleet-"));
    const bundle = join(dir, "worker.mjs");
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile: bundle,
      logLevel: "warning",
      // Some dependencies are CommonJS and call require().
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    });
    const started = performance.now();
    const fleet = new Fleet(dir, bundle, size);
    try {
      await fleet.loaded;
    } catch (error) {
      await fleet.close();
      throw error;
    }
    fleet.startMs = performance.now() - started;
    return fleet;
  }

  /** Connects every worker; `shared(i)` picks worker i's shared state (undefined: per-process). */
  async connect(url: string, config: Partial<McpToolkitConfig>, shared?: (i: number) => SharedSetup | undefined): Promise<void> {
    await Promise.all(
      this.workers.map((w, i) => {
        const setup = shared?.(i);
        return this.ask(w, { type: "connect", url, config, ...(setup ? { shared: setup } : {}) }, "ready");
      }),
    );
  }

  /** Starts every worker at the same moment, `delayMs` from now, and collects their calls. */
  run(options: { paceMs: number; calls?: number; durationMs?: number; delayMs?: number }): { startAt: number; results: Promise<WorkerResult[]> } {
    const startAt = Date.now() + (options.delayMs ?? 200);
    const command: Command = {
      type: "run",
      startAt,
      paceMs: options.paceMs,
      ...(options.calls !== undefined ? { calls: options.calls } : {}),
      ...(options.durationMs !== undefined ? { untilMs: startAt + options.durationMs } : {}),
    };
    const results = Promise.all(this.workers.map((w) => this.ask(w, command, "results"))) as Promise<WorkerResult[]>;
    return { startAt, results };
  }

  /** Closes every worker's toolkit, then kills any that has not exited. */
  async close(): Promise<void> {
    await Promise.all(
      this.workers.map((w) =>
        Promise.race([this.ask(w, { type: "close" }, "closed").catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 3000))]),
      ),
    );
    for (const w of this.workers) if (w.exitCode === null && w.signalCode === null) w.kill("SIGKILL");
    rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * Sends `command` under a new id and waits for the reply that repeats it: a reply to an
   * earlier command (a run a timed-out test left going) never answers a later one.
   */
  private ask(worker: ChildProcess, command: Command, want: WorkerReply["type"]): Promise<WorkerReply> {
    const id = ++this.commands;
    const replied = this.reply(worker, id, want);
    if (worker.connected) worker.send({ ...command, id });
    return replied;
  }

  /** The worker's reply `want` (or `failed`) with this `id`; rejects if the worker exits first. */
  private reply(worker: ChildProcess, id: number, want: WorkerReply["type"]): Promise<WorkerReply> {
    return new Promise((resolve, reject) => {
      const onMessage = (message: WorkerReply) => {
        if (message.id !== id || (message.type !== want && message.type !== "failed")) return;
        cleanup();
        if (message.type === "failed") reject(new Error(`worker failed: ${message.message}`));
        else resolve(message);
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`worker exited (${code}) before '${want}'`));
      };
      const cleanup = () => {
        worker.off("message", onMessage);
        worker.off("exit", onExit);
      };
      worker.on("message", onMessage);
      worker.once("exit", onExit);
      if (!worker.connected) onExit(worker.exitCode);
    });
  }
}
