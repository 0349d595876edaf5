import type { Server as HttpServer } from "node:http";
import type { Socket } from "node:net";

/**
 * Listens on 127.0.0.1:`port` (0 for any), keeping each connection in `sockets` while it is open
 * (a test server destroys them to play a crash or a restart); resolves with the port it got.
 */
export async function listenTracking(http: HttpServer, port: number, sockets: Set<Socket>): Promise<number> {
  http.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, "127.0.0.1", () => resolve());
  });
  return (http.address() as { port: number }).port;
}

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
