/**
 * stdio servers: a child process per connection. Node-only (it needs `node:child_process`), so
 * only src/nodeOnly/index.ts imports this file; the runtime-neutral build never reaches it.
 */
import type { ChildProcess } from "node:child_process";
import { serializeMessage, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { StdioServerConfig } from "../../config/index.js";
import { tagRequests } from "../call/requestScope.js";
import { childProcessOf } from "./sdkInternals.js";
import type { TransportProbe } from "./probe.js";
import type { StderrTail } from "./transports.js";

/** How long the pipes of a stdio server that exited may stay open for what it wrote before it died. */
const EXITED_PIPE_GRACE_MS = 500;

/**
 * A stdio transport whose process's exit code and stderr tail are recorded in `probe`, and whose
 * `close()` resolves once the process is gone.
 */
class WatchedStdioTransport extends StdioClientTransport {
  private child: ChildProcess | undefined;

  constructor(
    config: StdioServerConfig,
    private readonly probe: TransportProbe,
    private readonly stderrTail: StderrTail,
  ) {
    super({
      command: config.command,
      args: config.args ?? [],
      env: { ...getDefaultEnvironment(), ...config.env },
      ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
      ...(config.maxMessageBytes !== undefined ? { maxBufferSize: config.maxMessageBytes } : {}),
      stderr: "pipe",
    });
    this.stderr?.on("data", (chunk: Buffer) => stderrTail.push(chunk));
  }

  override async start(): Promise<void> {
    await super.start();
    // The SDK reports a close without its exit code; the child is read once, right after spawn.
    this.child = childProcessOf(this);
    const child = this.child;
    child?.once("exit", (exitCode, signal) => {
      this.probe.exit = { exitCode, signal, stderrTail: this.stderrTail.text() };
      // Its pipes may outlive it (another process holds its stdout: a wrapper's child, a forked
      // worker), and the SDK reports the end only when they close: the calls in flight would
      // wait for answers that cannot come. Past a grace for what it wrote before it died, our
      // ends are closed, and the SDK's close follows.
      const grace = setTimeout(() => {
        for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
      }, EXITED_PIPE_GRACE_MS);
      grace.unref();
      child.once("close", () => clearTimeout(grace));
    });
  }

  override async close(): Promise<void> {
    await super.close();
    if (this.child) await reap(this.child);
  }

  /**
   * The SDK's send, with one `drain` listener for every send that finds the server's stdin full.
   * The SDK adds a listener per send: 11 parallel calls whose arguments filled the pipe (64 calls
   * of 20 KB in test/mcp/stdioDrain.test.ts) made Node print MaxListenersExceededWarning.
   */
  override send(message: JSONRPCMessage): Promise<void> {
    // Read each time: the SDK lets go of its process on close, and its own send says so then.
    const stdin = childProcessOf(this)?.stdin;
    if (!stdin) return super.send(message);
    if (stdin.write(serializeMessage(message))) return Promise.resolve();
    return (this.drained ??= new Promise<void>((resolve) =>
      stdin.once("drain", () => {
        this.drained = undefined;
        resolve();
      }),
    ));
  }

  /** The wait for the server's stdin to drain, shared by the sends that found it full. */
  private drained: Promise<void> | undefined;
}

export function stdioTransport(config: StdioServerConfig, probe: TransportProbe, stderr: StderrTail): Transport {
  return tagRequests(new WatchedStdioTransport(config, probe, stderr), probe);
}

/** How long close() waits for a process it SIGKILLed to exit (the kernel may hold one in I/O). */
const REAP_TIMEOUT_MS = 2000;

/**
 * Makes sure a closed transport's process is gone before `close()` resolves. The SDK gives
 * up waiting after SIGKILL, and even after a clean exit the process handle is released a loop
 * iteration later; a caller that checked for leftover handles right after close() saw it.
 */
async function reap(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, REAP_TIMEOUT_MS).unref()))]);
    clearTimeout(timer);
  }
  // The exit handler starts closing the process handle; libuv finishes that at the end of
  // the loop iteration, after this iteration's immediates, so wait into the next one.
  for (let hop = 0; hop < 2; hop++) await new Promise<void>((resolve) => setImmediate(resolve));
}
