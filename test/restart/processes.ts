/**
 * The processes behind a server kind, and the faults the suite deals them:
 * - HTTP servers run as child processes with gate.mjs preloaded. The next process is started
 *   before the fault and held before listen, so after a kill -9 (SIGKILL) or a graceful stop
 *   (the server's own SIGTERM/SIGINT handling) it listens on the same port exactly when due.
 * - The stdio server is the toolkit's own child: the harness SIGKILLs or SIGTERMs it by the pid
 *   it wrote, and keeps it crash-looping (exit 3 at start) until it is due back.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

export type Fault = "kill" | "stop";

/** When the fault hit, when the server process was gone, and when it could answer again, by `performance.now()`. */
export interface FaultTimes {
  faultAt: number;
  deadAt: number;
  upAt: number;
}

export const GATE = fileURLToPath(new URL("./servers/gate.mjs", import.meta.url));

/** A free port on 127.0.0.1 (taken and released: every process of a kind listens on it in turn). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One gated server process. */
class GatedProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  private readonly tail: string[] = [];
  private readonly waiters: { line: string; resolve: () => void }[] = [];
  private seen = new Set<string>();

  constructor(command: string, args: string[], env: Record<string, string>) {
    this.child = spawn(command, args, { env: { ...process.env, ...env, RESTART_GATE: "1" }, stdio: ["pipe", "ignore", "pipe"] });
    this.exited = new Promise((resolve) => this.child.once("exit", () => resolve()));
    let buffer = "";
    this.child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        this.tail.push(line);
        if (this.tail.length > 20) this.tail.shift();
        const marker = line.startsWith("@@") ? line.split(" ")[0]! : undefined;
        if (!marker) continue;
        this.seen.add(marker);
        for (const w of this.waiters.filter((w) => w.line === marker)) w.resolve();
      }
    });
    // A write after the process died must not crash the harness.
    this.child.stdin!.on("error", () => undefined);
  }

  /** Resolves when the process printed `marker`; rejects if it exits first or after `ms`. */
  async waitFor(marker: string, ms: number): Promise<void> {
    if (this.seen.has(marker)) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        new Promise<void>((resolve) => this.waiters.push({ line: marker, resolve })),
        this.exited.then(() => Promise.reject(new Error(`server exited before ${marker}: ${this.tail.join(" | ")}`))),
        new Promise<void>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${marker} within ${ms} ms: ${this.tail.join(" | ")}`)), ms))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  go(): void {
    this.child.stdin!.write("go\n");
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Ends the process, by SIGKILL at the latest after `graceMs`. */
  async end(signal: NodeJS.Signals, graceMs: number): Promise<void> {
    if (!this.running) return;
    this.child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    if (this.running) {
      this.child.kill("SIGKILL");
      await this.exited;
    }
  }
}

export interface HttpServerSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** The signal of a graceful stop: SIGTERM, or SIGINT for servers that only handle that. */
  stopSignal: NodeJS.Signals;
}

/** An HTTP server kind on one port, restarted through a fresh process each time. */
export class RestartableHttp {
  private current: GatedProcess | undefined;
  private spare: GatedProcess | undefined;

  constructor(
    readonly port: number,
    private readonly spec: HttpServerSpec,
  ) {}

  private spawn(): GatedProcess {
    return new GatedProcess(this.spec.command, this.spec.args, { ...this.spec.env, RESTART_PORT: String(this.port), PORT: String(this.port) });
  }

  async start(): Promise<void> {
    const p = this.spawn();
    this.current = p;
    await p.waitFor("@@held", 30_000);
    p.go();
    await p.waitFor("@@listening", 10_000);
  }

  /** Starts the next process and lets it load, held before listen, ahead of the fault. */
  async prepare(): Promise<void> {
    this.spare ??= this.spawn();
    await this.spare.waitFor("@@held", 30_000);
  }

  /**
   * Kills or stops the server, and starts the next one listening `downMs` after the fault.
   * `onDead` is called once the old process is gone, while nothing listens on the port.
   */
  async fault(fault: Fault, downMs: number, onDead?: () => void): Promise<FaultTimes> {
    await this.prepare();
    const next = this.spare!;
    this.spare = undefined;
    const faultAt = performance.now();
    await this.current?.end(fault === "kill" ? "SIGKILL" : this.spec.stopSignal, 5_000);
    const deadAt = performance.now();
    onDead?.();
    await sleep(faultAt + downMs - performance.now());
    next.go();
    await next.waitFor("@@listening", 10_000);
    this.current = next;
    return { faultAt, deadAt, upAt: performance.now() };
  }

  async close(): Promise<void> {
    await Promise.all([this.current?.end("SIGKILL", 0), this.spare?.end("SIGKILL", 0)]);
  }
}

function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/** Is `pid` running (not gone, not a zombie)? */
function alive(pid: number): boolean {
  if (!signal(pid, 0)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** The stdio server of a toolkit: found by its pid file, kept down through its control file. */
export class RestartableStdio {
  constructor(
    private readonly pidFile: string,
    private readonly controlFile: string,
    /** The server's script: a pid is signalled only while its command line names it. */
    private readonly script: string,
  ) {
    writeFileSync(controlFile, JSON.stringify({ downUntil: 0 }));
  }

  /** The serving process, if it still runs (a pid reused by another process is not it). */
  private pid(): number | undefined {
    if (!existsSync(this.pidFile)) return undefined;
    const pid = Number(readFileSync(this.pidFile, "utf8"));
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(this.script) ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /** Kills or stops the serving process; every start crash-loops until `downMs` after the fault. */
  async fault(fault: Fault, downMs: number): Promise<FaultTimes> {
    const pid = this.pid();
    const faultAt = performance.now();
    const wallAt = Date.now();
    writeFileSync(this.controlFile, JSON.stringify({ downUntil: wallAt + downMs }));
    if (pid !== undefined) signal(pid, fault === "kill" ? "SIGKILL" : "SIGTERM");
    // The process is the toolkit's child: poll for its end (a zombie until the toolkit reaps it counts as gone).
    while (pid !== undefined && alive(pid) && performance.now() - faultAt < 5_000) await sleep(2);
    // It is the toolkit's to restart; it is back once starts stop crashing.
    return { faultAt, deadAt: performance.now(), upAt: faultAt + downMs };
  }
}
