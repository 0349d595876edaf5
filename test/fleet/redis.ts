/**
 * A real redis-server on a Unix socket in a temp dir: no port, nothing on the network. It can
 * be killed, hung (SIGSTOP) and flushed, as the fleet tests and `npm run fleet` need.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Is redis-server on PATH? CI installs it (.ci/run); elsewhere the tests that need it skip. */
export const redisServerFound = spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;

export class RedisProcess {
  readonly dir = mkdtempSync(join(tmpdir(), "mcp-fleet-redis-"));
  readonly socket = join(this.dir, "redis.sock");
  private child: ChildProcess | undefined;
  private paused = false;

  async start(): Promise<this> {
    const child = spawn("redis-server", ["--port", "0", "--unixsocket", this.socket, "--unixsocketperm", "700", "--save", "", "--appendonly", "no", "--dir", this.dir], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const started = Date.now();
    while (!existsSync(this.socket) || !/ready to accept connections/i.test(output)) {
      if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}): ${output.slice(-500)}`);
      if (Date.now() - started > 10_000) throw new Error(`redis-server did not start in 10 s: ${output.slice(-500)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGSTOP: the socket stays open and every command hangs, the worst case for a client. */
  pause(): void {
    if (this.running && !this.paused) this.child!.kill("SIGSTOP");
    this.paused = true;
  }

  resume(): void {
    if (this.running && this.paused) this.child!.kill("SIGCONT");
    this.paused = false;
  }

  /** SIGKILL, and wait for the process to be gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    this.paused = false;
    await exited;
  }

  /** Kills the server and removes its directory. */
  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
