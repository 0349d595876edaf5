/**
 * MCP's own `ping`, for the circuit breaker's recovery test (RecoveryPing): does the server
 * answer at all? It runs no tool and costs the server nothing.
 */
import { normalize } from "../../errors/normalize.js";
import { verdictOf } from "../../policy/verdict.js";
import type { Connection } from "./Connection.js";

/**
 * Pings the server on the connection's live client, connecting first when needed. Resolves true
 * when the server answered, an error that proves it up included (a session it forgot, a method
 * it lacks); false when it did not, or `signal` aborted first. Never rejects.
 */
export function serverPing(connection: Connection): (signal: AbortSignal) => Promise<boolean> {
  return async (signal) => {
    try {
      const lease = await connection.lease(signal);
      await lease.client.ping({ signal });
      return true;
    } catch (error) {
      return !signal.aborted && verdictOf(normalize(error, { serverName: connection.name })) === "healthy";
    }
  };
}
