/**
 * A TLS endpoint in front of a real MCP server, with a self-signed certificate made at test time
 * by openssl. The certificate names `localhost` only, so reaching it as 127.0.0.1 with the
 * certificate trusted fails on the host name.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { createServer, type Server } from "node:tls";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

export interface SelfSigned {
  key: string;
  cert: string;
}

/** A fresh self-signed certificate for `localhost` (openssl, 2048-bit RSA, one day). */
export function selfSignedCertificate(): SelfSigned {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tls-"));
  try {
    const key = join(dir, "key.pem");
    const cert = join(dir, "cert.pem");
    execFileSync(
      "/usr/bin/openssl",
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
      { stdio: "ignore" },
    );
    return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export class TlsEndpoint {
  port = 0;
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly upstreamPort: number,
    readonly certificate: SelfSigned = selfSignedCertificate(),
  ) {}

  /** The endpoint's URL for `path`, reached as `host`. */
  url(path = "/mcp", host = "127.0.0.1"): URL {
    return new URL(`https://${host}:${this.port}${path}`);
  }

  async start(): Promise<this> {
    const server = createServer({ key: this.certificate.key, cert: this.certificate.cert }, (client) => {
      const upstream = connect(this.upstreamPort, "127.0.0.1");
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.once("close", () => this.sockets.delete(s));
        s.on("error", () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    // Handshakes the client refuses end here.
    server.on("tlsClientError", () => undefined);
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.port = (server.address() as { port: number }).port;
    return this;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export async function startTlsEndpoint(upstreamPort: number): Promise<TlsEndpoint> {
  return new TlsEndpoint(upstreamPort).start();
}

/**
 * A fetch over node:https that trusts `ca`: what a user passes as a server's `fetch` option when
 * their server's certificate is private. Enough of fetch for the MCP transports (streamed bodies).
 */
export function httpsFetchTrusting(ca: string, calls: { count: number } = { count: 0 }): FetchLike {
  return (url, init) =>
    new Promise<Response>((resolve, reject) => {
      calls.count++;
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
      const req = httpsRequest(new URL(String(url)), { method: init?.method ?? "GET", headers, ca, signal: init?.signal ?? undefined }, (res) => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(", ") : value);
        const status = res.statusCode ?? 500;
        const body = status === 204 || status === 304 ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, headers: out }));
      });
      req.once("error", reject);
      req.end(typeof init?.body === "string" ? init.body : undefined);
    });
}
