/**
 * Which protocol era a connection speaks, and what it remembers between connects: the era the
 * last connect learnt (reused by reconnects, no second probe) and whether the connection in use
 * came from a renegotiation (after which another -32022 is final).
 */
import type { Client, PriorDiscovery, Transport } from "@modelcontextprotocol/client";
import { DEFAULT_HTTP_ERA, DEFAULT_STDIO_ERA, type EraSetting, type ServerConfig } from "../../config/index.js";
import { normalize } from "../../errors/normalize.js";
import type { ConnectAttempt, EraChoice } from "./connect.js";

type OwnServer = Exclude<ServerConfig, { client: unknown }>;

/** The era a server's config asks for; the legacy SSE transport only speaks the 2025 revisions. */
export function eraSetting(config: OwnServer): EraSetting {
  if (config.transport === "sse") return "legacy";
  return config.era ?? (config.transport === "stdio" ? DEFAULT_STDIO_ERA : DEFAULT_HTTP_ERA);
}

/**
 * How long a `server/discover` probe may wait. Over HTTP silence is an outage, so the probe
 * gets the whole connect timeout; over stdio silence means a 2025-era server (the SDK then
 * runs `initialize`), so the probe gets half, leaving the other half for that.
 */
export function probeTimeoutMs(transport: OwnServer["transport"], connectTimeoutMs: number): number {
  return transport === "stdio" ? Math.max(1, Math.floor(connectTimeoutMs / 2)) : connectTimeoutMs;
}

export class EraMemory {
  /** The era the last connect negotiated, reused by reconnects until a -32022 says it changed. */
  private prior: PriorDiscovery | undefined;
  /** The generation a renegotiation produced: another -32022 on it is final. */
  private renegotiatedGeneration = -1;
  private renegotiateNext = false;

  /**
   * Opens a client in the era `setting` asks for, or the one the last connect learnt. A server
   * that refuses the version offered (-32022: a 2026-only server answering `initialize`, or one
   * that changed era since we learnt it) gets one renegotiation in `auto` mode; a second
   * refusal is the connect's error.
   */
  async open(
    setting: EraSetting,
    attempt: ConnectAttempt,
    open: (choice: EraChoice) => Promise<{ client: Client; transport: Transport }>,
    onRetry: () => void,
  ): Promise<{ client: Client; transport: Transport }> {
    const first: EraChoice = this.prior ? { era: setting, prior: this.prior } : { era: setting };
    let opened: { client: Client; transport: Transport };
    try {
      opened = await open(first);
    } catch (error) {
      const refused = normalize(error, { notSent: true }).reason === "protocol_version_unsupported";
      if (!refused || attempt.abandoned || (setting === "modern" && !first.prior)) throw error;
      this.prior = undefined;
      this.renegotiateNext = true;
      onRetry();
      opened = await open({ era: setting === "modern" ? "modern" : "auto" });
    }
    const learnt = opened.client.getProtocolEra();
    const discover = opened.client.getDiscoverResult();
    this.prior = learnt === "modern" && discover ? { kind: "modern", discover } : learnt === "legacy" ? { kind: "legacy" } : undefined;
    return opened;
  }

  /**
   * Starts from an era verdict learnt elsewhere (a catalog's entry), unless a connect of this
   * connection already learnt one. A wrong one costs one renegotiation, as after an upgrade.
   */
  assume(prior: PriorDiscovery): void {
    this.prior ??= prior;
  }

  /** A connect succeeded as `generation`: was it a renegotiation? */
  connected(generation: number): void {
    if (this.renegotiateNext) this.renegotiatedGeneration = generation;
    this.renegotiateNext = false;
  }

  /**
   * The server refused our version on the live connection `generation` (the current one when
   * `current`). Returns false when that connection already was a renegotiation: the error is
   * final. Otherwise the next connect renegotiates from scratch.
   */
  refused(generation: number, current: boolean): boolean {
    if (generation === this.renegotiatedGeneration) return false;
    if (current) {
      this.prior = undefined;
      this.renegotiateNext = true;
    }
    return true;
  }
}
