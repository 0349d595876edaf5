import type { ChildProcess } from "node:child_process";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { DEFAULT_STDERR_LINES, type HttpServerConfig, type SseServerConfig, type StdioServerConfig } from "../config/index.js";
import type { ExitInfo } from "../errors/normalize.js";
import { parseRetryAfter } from "../errors/normalize.js";

/** What a connection learns from its transport beyond JSON-RPC. */
export interface TransportProbe {
  /** How the stdio process ended, once it has. */
  exit?: ExitInfo;
  /** The last Retry-After the HTTP server sent, and when. */
  retryAfter?: { ms: number; at: number };
  /** Called with the JSON-RPC ids whose POST response stream broke before it finished. */
  onStreamLost?: (ids: number[], error: unknown) => void;
  /**
   * Closes the response stream of a request the caller gave up on (set by `probingFetch`).
   * A server never answers a cancelled request, so its stream would stay open, with its
   * socket, until the session ends.
   */
  abandon?: (id: number) => void;
}

/** Keeps the last lines of a process's stderr, bounded in lines and bytes. */
export class StderrTail {
  private lines: string[] = [];
  private partial = "";

  constructor(private readonly maxLines = DEFAULT_STDERR_LINES, private readonly maxChars = 4000) {}

  push(chunk: Buffer | string): void {
    const text = this.partial + chunk.toString();
    const parts = text.split(/\r?\n/);
    this.partial = (parts.pop() ?? "").slice(-this.maxChars);
    for (const line of parts) if (line.trim() !== "") this.lines.push(line.slice(0, this.maxChars));
    if (this.lines.length > this.maxLines) this.lines.splice(0, this.lines.length - this.maxLines);
  }

  text(): string {
    const all = [...this.lines, ...(this.partial.trim() ? [this.partial] : [])].join("\n");
    return all.length > this.maxChars ? all.slice(-this.maxChars) : all;
  }

  clear(): void {
    this.lines = [];
    this.partial = "";
  }
}

/** A stdio transport whose process's exit code and stderr tail are recorded in `probe`. */
export function stdioTransport(config: StdioServerConfig, probe: TransportProbe, stderr: StderrTail): Transport {
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args ?? [],
    env: { ...getDefaultEnvironment(), ...config.env },
    ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
  let child: ChildProcess | undefined;
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    // The SDK keeps the child private and reports a close without its exit code; the
    // child is read here once, right after spawn (pinned by a test against SDK 1.32).
    child = (transport as unknown as { _process?: ChildProcess })._process;
    child?.once("exit", (exitCode, signal) => {
      probe.exit = { exitCode, signal, stderrTail: stderr.text() };
    });
  };
  const close = transport.close.bind(transport);
  transport.close = async () => {
    await close();
    if (child) await reap(child);
  };
  return transport;
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

/**
 * A fetch that records Retry-After on failed responses (the SDK's HTTP errors do not carry
 * headers) and reports POST response streams that break before they finish.
 */
export function probingFetch(probe: TransportProbe): FetchLike {
  // Each POST carrying requests gets its own controller, linked to the transport's, so one
  // request's stream can be closed alone.
  const open = new Map<number, AbortController>();
  const abandoned = new WeakSet<AbortController>();
  probe.abandon = (id) => {
    const request = open.get(id);
    if (!request) return;
    abandoned.add(request);
    request.abort(new Error("The caller gave up on this request."));
  };
  return async (url, init) => {
    const ids = init?.method === "POST" ? requestIds(init.body) : [];
    const own = ids.length > 0 ? linkedController(init?.signal) : undefined;
    if (own) for (const id of ids) open.set(id, own.controller);
    const done = () => {
      own?.unlink();
      for (const id of ids) if (open.get(id) === own?.controller) open.delete(id);
    };
    let response: Response;
    try {
      response = await fetch(url, own ? { ...init, signal: own.controller.signal } : init);
    } catch (error) {
      done();
      throw error;
    }
    if (!response.ok) {
      done();
      const ms = parseRetryAfter(response.headers.get("retry-after"));
      if (ms !== undefined) probe.retryAfter = { ms, at: Date.now() };
      return response;
    }
    if (!own || !response.body) {
      done();
      return response;
    }
    // JSON answers are wrapped too, so the link to the transport's signal lasts exactly as long as the body.
    const sse = response.headers.get("content-type")?.includes("text/event-stream") === true;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const { value, done: ended } = await reader.read();
          if (ended) {
            done();
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          done();
          // A stream we closed on purpose ends quietly; only a real break is a lost stream.
          if (abandoned.has(own.controller)) controller.close();
          else {
            if (sse) probe.onStreamLost?.(ids, error);
            controller.error(error);
          }
        }
      },
      cancel: (reason) => {
        done();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** A controller that aborts with `outer`; `unlink` drops the listener once the request is done. */
function linkedController(outer: AbortSignal | null | undefined): { controller: AbortController; unlink: () => void } {
  const controller = new AbortController();
  if (!outer) return { controller, unlink: () => {} };
  if (outer.aborted) {
    controller.abort(outer.reason);
    return { controller, unlink: () => {} };
  }
  const onAbort = () => controller.abort(outer.reason);
  outer.addEventListener("abort", onAbort, { once: true });
  return { controller, unlink: () => outer.removeEventListener("abort", onAbort) };
}

function requestIds(body: unknown): number[] {
  if (typeof body !== "string") return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    return messages
      .filter((m): m is { id: number; method: string } => typeof m === "object" && m !== null && "method" in m && typeof (m as { id?: unknown }).id === "number")
      .map((m) => m.id);
  } catch {
    return [];
  }
}

export function streamableTransport(config: HttpServerConfig, probe: TransportProbe): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(String(config.url)), {
    requestInit: { headers: config.headers ?? {} },
    fetch: probingFetch(probe),
    ...(config.authProvider ? { authProvider: config.authProvider } : {}),
  });
}

export function sseTransport(config: HttpServerConfig | SseServerConfig, probe: TransportProbe): SSEClientTransport {
  return new SSEClientTransport(new URL(String(config.url)), {
    requestInit: { headers: config.headers ?? {} },
    fetch: probingFetch(probe),
    ...(config.authProvider ? { authProvider: config.authProvider } : {}),
  });
}
