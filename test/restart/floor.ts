/**
 * The floor of "first success after the server is back": a plain v2 SDK client (no toolkit, no
 * breaker, no retries) that starts connecting the very moment the restarted server listens, then
 * makes one read. No client that learns of the restart by trying can do better; what is left is
 * the restarted server's own first answers (a cold process: its first `initialize` alone takes
 * tens of milliseconds).
 */
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { MODERN_VERSION } from "../../src/mcp/session/connect.js";
import type { KindRun } from "./kinds.js";

/** Restarts the server `trials` times (kill, back after 300 ms) and times a fresh client's first read from the moment it listens, less the tool's own work. */
export async function measureFloor(kind: KindRun, trials: number): Promise<number[]> {
  if (kind.transport === "stdio" || !("url" in kind.server)) return [];
  const url = new URL(String(kind.server.url));
  const floor: number[] = [];
  for (let i = 0; i < trials; i++) {
    await kind.prepare();
    const { upAt } = await kind.fault("kill", 300);
    const client = new Client({ name: "restart-floor", version: "1.0.0" }, kind.name === "v2-modern" ? { versionNegotiation: { mode: { pin: MODERN_VERSION } } } : {});
    const workMs = 20;
    try {
      await client.connect(kind.transport === "sse" ? new SSEClientTransport(url) : new StreamableHTTPClientTransport(url));
      const result = await client.callTool({ name: kind.read.tool, arguments: kind.read.args(`floor-${i}`, workMs) });
      if (!result.isError) floor.push(performance.now() - upAt - workMs);
    } catch {
      // A floor that failed is no floor: left out.
    } finally {
      await client.close().catch(() => undefined);
    }
  }
  return floor;
}
