/**
 * A server's log messages (`notifications/message`): heard on our own client, reported as `log`
 * events at or above the server's `logLevel`, and the last few at warning or above kept, so a
 * failed call's artifact can carry what the server said just before (never the model's text).
 */
import type { Client } from "@modelcontextprotocol/client";
import type { LogEvent, LogLevel } from "../../events.js";

/** The syslog levels, lowest first, as MCP orders them. */
export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** How many warning-or-worse lines a connection keeps for the artifacts of failed calls. */
const KEPT = 5;

/** The `_meta` key a 2026-07-28 request states its log level under (SEP-2577's per-request level). */
export const LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel";

/** One line kept for an artifact. */
export interface ServerLogLine {
  level: LogLevel;
  logger?: string;
  data: unknown;
  /** Its place among the lines the connection has heard (`ServerLogs.mark`). */
  seq: number;
}

export function atLeast(level: LogLevel, floor: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(floor);
}

export class ServerLogs {
  private readonly recent: ServerLogLine[] = [];
  /** How many warning-or-worse lines were heard: a count, not a clock, so two lines of one millisecond stay apart and a mark is a small integer. */
  private heardCount = 0;

  constructor(
    private readonly serverName: string,
    /** The lowest level reported as a `log` event; unset, every message the server sends. */
    private readonly level: LogLevel | undefined,
    private readonly emit: (event: LogEvent) => void,
  ) {}

  /** Hears `client`'s log messages. */
  listen(client: Client): void {
    client.setNotificationHandler("notifications/message", (notification) => this.heard(notification.params as { level: LogLevel; logger?: string; data: unknown }));
  }

  /** Where the log stands now: `since` a mark gives the lines heard after it. */
  mark(): number {
    return this.heardCount;
  }

  /** The warning-or-worse lines heard after `mark`, oldest first. */
  since(mark: number): ServerLogLine[] {
    return this.recent.filter((line) => line.seq > mark);
  }

  private heard({ level, logger, data }: { level: LogLevel; logger?: string; data: unknown }): void {
    if (!LOG_LEVELS.includes(level)) return;
    if (atLeast(level, "warning")) {
      this.recent.push({ level, ...(logger ? { logger } : {}), data, seq: ++this.heardCount });
      if (this.recent.length > KEPT) this.recent.shift();
    }
    if (this.level && !atLeast(level, this.level)) return;
    this.emit({ type: "log", serverName: this.serverName, level, ...(logger ? { logger } : {}), data });
  }
}
