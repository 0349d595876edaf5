/**
 * The tools one server offers: the list read at the last (re)connect, replaced when the server
 * says its list changed or a call finds it stale, and who is told when it changes.
 */
import type { Client } from "@modelcontextprotocol/client";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { watchTools } from "./toolWatch.js";

export class ToolCatalog {
  /** The tools the server listed at the last (re)connect, or since, when it said its list changed. */
  tools: Tool[] = [];
  /** Told when the server's tool list changed after the connect that listed it. */
  onChanged: (() => void) | undefined;
  private stopWatching: () => void = () => {};

  /**
   * Hears `client`'s list changes while `isCurrent()` says it is the connection's client. Ready
   * once the server acknowledged the stream, or after `readyWithinMs` without it. The watch is
   * kept only when `adopt` is called; `drop` stops it.
   */
  watch(client: Client, isCurrent: () => boolean, readyWithinMs: number): { ready: Promise<void>; adopt: () => void; drop: () => void } {
    const watching = watchTools(
      client,
      (listed) => {
        if (!isCurrent()) return;
        this.tools = listed;
        this.onChanged?.();
      },
      readyWithinMs,
    );
    return {
      ready: watching.ready,
      adopt: () => {
        this.stop();
        this.stopWatching = watching.stop;
      },
      drop: watching.stop,
    };
  }

  /** Stops hearing the current client's list changes. */
  stop(): void {
    this.stopWatching();
    this.stopWatching = () => {};
  }

  /** Takes a list read from the server; `onChanged` hears of it when the names differ and `announce` is set. */
  replace(tools: Tool[], announce: boolean): void {
    const before = announce ? namesOf(this.tools) : "";
    this.tools = tools;
    if (announce && namesOf(tools) !== before) this.onChanged?.();
  }
}

function namesOf(tools: Tool[]): string {
  return tools.map((t) => t.name).join("\u0000");
}
