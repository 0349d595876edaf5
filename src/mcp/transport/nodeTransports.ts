/**
 * What only the Node build can open: a stdio server's process, and the TCP probe that tells when
 * a refused HTTP server listens again. Both are built here in mcp/ (stdio.ts, listenWatch.ts) but
 * need Node's modules, so nothing in mcp/ imports them: src/nodeOnly/ hands them to the toolkit,
 * which passes them to each connection. Without them a stdio server is refused at connect, and a
 * wait for a refused server ends on its timer.
 */
import type { Transport } from "@modelcontextprotocol/client";
import type { StdioServerConfig } from "../../config/index.js";
import type { TransportProbe } from "./probe.js";
import type { StderrTail } from "./transports.js";

/** Tells when a refused TCP address listens again (listenWatch.ts). */
export interface ListenProbe {
  within(ms: number): Promise<boolean>;
}

export interface NodeTransports {
  /** A stdio server's transport: a child process. */
  readonly stdioTransport?: (config: StdioServerConfig, probe: TransportProbe, stderr: StderrTail) => Transport;
  /** A TCP probe for a refused HTTP server, alive until `closing` aborts. */
  readonly listenProbe?: (url: URL, closing: AbortSignal) => ListenProbe;
}
