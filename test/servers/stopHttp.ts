import type { Server as HttpServer } from "node:http";

/** Closes every MCP session a test server holds, then its open connections and its listener. */
export async function stopSessionsAndServer(sessions: Map<string, { close(): Promise<void> }>, http: HttpServer | undefined): Promise<void> {
  const open = [...sessions.values()];
  sessions.clear();
  await Promise.allSettled(open.map((t) => t.close()));
  if (!http) return;
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  http.closeAllConnections();
  await closed;
}
