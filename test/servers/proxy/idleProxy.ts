/**
 * A TCP proxy that closes idle keep-alive connections, as load balancers and reverse proxies do.
 *
 * - `timer` mode closes a connection `idleMs` after its last byte, as a real proxy does; a request
 *   sent about then races the close (a real race, so how often it is lost varies).
 * - `crossing` mode makes the race's bad outcome certain: bytes arriving on a connection that
 *   has been idle for `idleMs` or more are dropped and the connection closed, exactly as if the
 *   proxy had closed it just before they arrived. The server never sees them.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface IdleProxyOptions {
  idleMs: number;
  /** @default "crossing" */
  mode?: "timer" | "crossing";
  /**
   * Close idle connections from the start? `false` waits for {@link IdleProxy.arm}, so that a
   * client's connect on a loaded machine (a handshake whose steps stall past `idleMs`) does not
   * meet the race its later calls are there to meet. @default true
   */
  armed?: boolean;
}

export class IdleProxy {
  port = 0;
  /** Connections the proxy closed for idleness. */
  idleCloses = 0;
  /** Requests dropped because they arrived on a connection the proxy was closing (crossing mode). */
  dropped = 0;
  /** Client connections accepted. */
  connections = 0;
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private armed: boolean;

  constructor(
    private readonly upstreamPort: number,
    private readonly options: IdleProxyOptions,
  ) {
    this.armed = options.armed ?? true;
  }

  /** Starts closing idle connections (see {@link IdleProxyOptions.armed}). */
  arm(): void {
    this.armed = true;
  }

  async start(): Promise<this> {
    const server = createServer((client) => this.pipe(client));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.port = (server.address() as { port: number }).port;
    return this;
  }

  /** `url` with this proxy's port. */
  wrap(url: URL): URL {
    const out = new URL(url.href);
    out.port = String(this.port);
    return out;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private pipe(client: Socket): void {
    this.connections++;
    const upstream = connect(this.upstreamPort, "127.0.0.1");
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.once("close", () => this.sockets.delete(s));
      s.on("error", () => undefined);
    }
    let last = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const closeIdle = () => {
      if (!this.armed) return;
      this.idleCloses++;
      client.end();
      upstream.destroy();
    };
    const touch = () => {
      last = performance.now();
      if (this.options.mode !== "timer") return;
      clearTimeout(timer);
      timer = setTimeout(closeIdle, this.options.idleMs);
    };
    touch();
    client.on("data", (chunk: Buffer) => {
      if (this.armed && this.options.mode !== "timer" && performance.now() - last >= this.options.idleMs) {
        this.dropped++;
        closeIdle();
        return;
      }
      touch();
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      touch();
      client.write(chunk);
    });
    client.once("close", () => {
      clearTimeout(timer);
      upstream.destroy();
    });
    upstream.once("close", () => {
      clearTimeout(timer);
      client.destroy();
    });
  }
}

export async function startIdleProxy(upstreamPort: number, options: IdleProxyOptions): Promise<IdleProxy> {
  return new IdleProxy(upstreamPort, options).start();
}
