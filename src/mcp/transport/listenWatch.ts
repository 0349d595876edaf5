/**
 * Tells, within a few milliseconds, when an HTTP server that refused the connection listens
 * again. While someone waits, one loop tries a plain TCP connect to the server's host and port
 * every {@link PROBE_MS} and closes it at once, sending nothing: a refused connect is answered by
 * the host's kernel, so the server itself sees one accepted-and-closed socket when it is back.
 *
 * It only shortens waits that a refusal began (the breaker's open period, a call's retry
 * backoff): those would otherwise end on their timers, up to hundreds of milliseconds after the
 * server listens, and a restarted server's first answer would wait for nothing.
 *
 * Node-only (`node:net`): only src/nodeOnly/index.ts imports this file.
 */
import { connect } from "node:net";
import { sleep } from "../../policy/abort.js";

/** How often a refused server is tried while someone waits, in milliseconds. */
export const PROBE_MS = 20;

export class ListenWatch {
  private readonly host: string;
  private readonly port: number;
  /** The running loop, if one runs, and when it gives up. */
  private loop: Promise<boolean> | undefined;
  private deadline = 0;

  constructor(
    url: URL,
    /** Aborts when the toolkit closes: the loop stops there. */
    private readonly closing: AbortSignal,
  ) {
    this.host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    this.port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
  }

  /**
   * Resolves `true` once something accepts a TCP connection at the server's address, within
   * `ms`; `false` at the end of `ms`, on an error that is not a refusal (nothing more to learn
   * here), or once the toolkit closes. Every waiter shares the one loop, and each is answered at
   * its own `ms`: a waiter for the rest of a 100 ms open period is not held by one that waits
   * out a call's whole timeout.
   */
  within(ms: number): Promise<boolean> {
    const until = performance.now() + ms;
    this.deadline = Math.max(this.deadline, until);
    const loop = (this.loop ??= this.run().finally(() => {
      this.loop = undefined;
    }));
    if (until >= this.deadline) return loop;
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      void loop.then((up) => {
        clearTimeout(timer);
        resolve(up);
      });
    });
  }

  private async run(): Promise<boolean> {
    for (;;) {
      if (this.closing.aborted) return false;
      const started = performance.now();
      const answer = await this.tryOnce(this.deadline - started);
      if (answer !== "refused") return answer === "listening";
      const next = started + PROBE_MS;
      if (next >= this.deadline) return false;
      const closed = await sleep(next - performance.now(), this.closing).then(
        () => false,
        () => true,
      );
      if (closed) return false;
    }
  }

  /** One connect: accepted, refused, or anything else (a hang past `ms` included). */
  private tryOnce(ms: number): Promise<"listening" | "refused" | "other"> {
    if (ms <= 0) return Promise.resolve("other");
    return new Promise((resolve) => {
      const socket = connect({ host: this.host, port: this.port });
      let settled = false;
      const done = (answer: "listening" | "refused" | "other") => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.closing.removeEventListener("abort", stop);
        socket.destroy();
        resolve(answer);
      };
      const stop = () => done("other");
      const timer = setTimeout(stop, ms);
      this.closing.addEventListener("abort", stop, { once: true });
      socket.once("connect", () => done("listening"));
      // `on`, not `once`: a socket that errs twice must not throw the second time.
      socket.on("error", (error: NodeJS.ErrnoException) => done(error.code === "ECONNREFUSED" ? "refused" : "other"));
    });
  }
}
