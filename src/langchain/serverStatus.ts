/**
 * Where each of a toolkit's servers stands, as `McpToolkit.status()` reports it, and the
 * `server_status` event that tells each change. A failure to connect is data here, not an
 * exception: an optional server that is down is one entry among the others.
 */
import { DEFAULT_SERVER_OPTIONS, type McpToolkitConfig, type ServerConfig } from "../config/index.js";
import type { McpToolError } from "../errors/McpToolError.js";
import type { McpEvent, ServerState, ServerStatus } from "../events.js";
import { CallHealth, callVerdict } from "./callHealth.js";

/**
 * Must this server connect for `connect()` to succeed? Its own `required` wins; unset, the
 * toolkit's `onConnectionError` decides (`"skip"`: optional), else the schema's default.
 */
export function isRequired(server: ServerConfig, config: McpToolkitConfig): boolean {
  return server.required ?? (config.onConnectionError === "skip" ? false : DEFAULT_SERVER_OPTIONS.required);
}

interface Entry {
  state: ServerState;
  required: boolean;
  protocolVersion?: string;
  lastError?: { reason: McpToolError["reason"]; message: string };
  connectMs?: number;
  nextAttemptAt?: number;
  gaveUpAfter?: number;
  /** Its finished calls since it joined: whether it reads `"degraded"` or `"unauthorized"`. */
  calls: CallHealth;
}

/** The states of a server whose tools are offered: its calls tell which. */
const LIVE: ReadonlySet<ServerState> = new Set(["connected", "degraded", "unauthorized"]);

export class ServerStatusBoard {
  private readonly entries = new Map<string, Entry>();

  /**
   * @param toolsOf the exposed names of the tools a server offers now, read when a status is
   *   made, so that a tool list that changed is never reported stale.
   */
  constructor(
    config: McpToolkitConfig,
    private readonly emit: (event: McpEvent) => void,
    private readonly toolsOf: (server: string) => string[],
  ) {
    for (const [name, server] of Object.entries(config.servers)) this.entries.set(name, { state: "connecting", required: isRequired(server, config), calls: new CallHealth() });
  }

  required(server: string): boolean {
    return this.entries.get(server)?.required ?? DEFAULT_SERVER_OPTIONS.required;
  }

  /** The server connected (its tools already built, so the event lists them). */
  connected(server: string, facts: { protocolVersion: string | undefined; connectMs: number }): void {
    const entry = this.entries.get(server);
    if (!entry || entry.state === "closed") return;
    const previous = entry.state;
    entry.state = "connected";
    entry.calls.reset();
    delete entry.gaveUpAfter;
    entry.connectMs = Math.round(facts.connectMs);
    if (facts.protocolVersion === undefined) delete entry.protocolVersion;
    else entry.protocolVersion = facts.protocolVersion;
    this.report(server, entry, previous);
  }

  /** The connection was established again after it closed: the version may differ (an upgraded server). */
  reconnected(server: string, protocolVersion: string | undefined): void {
    const entry = this.entries.get(server);
    if (entry && LIVE.has(entry.state) && protocolVersion !== undefined) entry.protocolVersion = protocolVersion;
  }

  /**
   * One of the server's tool calls ended (`error`: how it failed). While its tools are offered,
   * its state follows its calls (see callHealth.ts); each change is told.
   */
  callEnded(server: string, error?: McpToolError): void {
    const entry = this.entries.get(server);
    if (!entry || !LIVE.has(entry.state)) return;
    entry.calls.record(callVerdict(error));
    const previous = entry.state;
    entry.state = entry.calls.state;
    if (entry.state !== previous) this.report(server, entry, previous);
  }

  /**
   * A connect failed with `error`, already redacted. Returns whether that was a change worth
   * telling: a new state, or a reason other than the last one. A server retried every few
   * seconds for an hour reports the failure once, not a thousand times.
   */
  failed(server: string, error: McpToolError): boolean {
    const entry = this.entries.get(server);
    if (!entry || entry.state === "closed") return false;
    const previous = entry.state;
    const changed = previous !== "failed" || entry.lastError?.reason !== error.reason;
    entry.state = "failed";
    entry.lastError = { reason: error.reason, message: error.message };
    if (changed) this.report(server, entry, previous);
    return changed;
  }

  /** Why the server's last connect failed, if it did. */
  lastReason(server: string): McpToolError["reason"] | undefined {
    return this.entries.get(server)?.lastError?.reason;
  }

  /** A failed server's next background attempt is due at `at` (epoch ms); `undefined` once it starts. */
  nextAttempt(server: string, at: number | undefined): void {
    const entry = this.entries.get(server);
    if (!entry) return;
    if (at === undefined || entry.state !== "failed") delete entry.nextAttemptAt;
    else entry.nextAttemptAt = at;
  }

  /**
   * A failed server's background attempts stopped after `attempts` failed ones in a row (its
   * process cannot start): told once more, so a listener learns that only `refresh()` is left.
   */
  gaveUp(server: string, attempts: number): void {
    const entry = this.entries.get(server);
    if (entry?.state !== "failed") return;
    delete entry.nextAttemptAt;
    entry.gaveUpAfter = attempts;
    this.report(server, entry, entry.state);
  }

  /** The toolkit closed: every server is `"closed"`, each told once. */
  closeAll(): void {
    for (const [server, entry] of this.entries) {
      if (entry.state === "closed") continue;
      const previous = entry.state;
      entry.state = "closed";
      this.report(server, entry, previous);
    }
  }

  /** Every server's status now, by name; fresh objects, so a caller may keep or change them. */
  snapshot(): Record<string, ServerStatus> {
    const out: Record<string, ServerStatus> = {};
    for (const [server, entry] of this.entries) out[server] = this.statusOf(server, entry);
    return out;
  }

  private statusOf(server: string, entry: Entry): ServerStatus {
    return {
      state: entry.state,
      required: entry.required,
      ...(entry.protocolVersion !== undefined ? { protocolVersion: entry.protocolVersion } : {}),
      tools: LIVE.has(entry.state) ? this.toolsOf(server) : [],
      ...(entry.lastError ? { lastError: { ...entry.lastError } } : {}),
      ...(entry.connectMs !== undefined ? { connectMs: entry.connectMs } : {}),
      ...(entry.state === "failed" && entry.nextAttemptAt !== undefined ? { nextAttemptAt: entry.nextAttemptAt } : {}),
      ...(entry.state === "failed" && entry.gaveUpAfter !== undefined ? { gaveUpAfter: entry.gaveUpAfter } : {}),
    };
  }

  private report(server: string, entry: Entry, previous: ServerState): void {
    this.emit({ type: "server_status", serverName: server, previous, ...this.statusOf(server, entry) });
  }
}
