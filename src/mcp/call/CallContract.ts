/**
 * What a call promises when it starts, and every send and wait of it reads from here, never from
 * the connection's state of the moment (which is empty while it is being re-made):
 * - **identity**: the per-call headers a `beforeToolCall` gave, every name carried to the server
 *   (Authorization and DPoP included) or the call refused unsent, naming the header;
 * - **key**: the idempotency key, decided once, and carried by every send once decided;
 * - **deadline**: how long the caller waits for the whole call (policy/Deadline.ts), told to the
 *   server on each send as the milliseconds left.
 * The one place where a call's headers, key and deadline are decided.
 */
import { DEADLINE_META } from "../../errors/deadline.js";
import { IDEMPOTENCY_KEY_META } from "../../errors/idempotency.js";
import { McpToolError } from "../../errors/McpToolError.js";
import { deadlineOf, type Deadline, type DeadlinePolicy } from "../../policy/Deadline.js";
import type { Connection } from "../session/Connection.js";
import type { HeaderRoute } from "./ClientRequests.js";

/**
 * Headers the protocol derives from the message or the session (the SDK's transport owns them): a
 * call's own value would make the request disagree with its body or its session, which servers
 * check (SEP-2243). A call that sets one is refused, naming it.
 */
const PROTOCOL_HEADERS = new Set(["content-type", "mcp-protocol-version", "mcp-method", "mcp-name", "mcp-session-id"]);

/** Names the v2 SDK's streamable transport drops from a request's `headers` option without a word. */
const SDK_RESERVED = new Set(["authorization", "dpop", ...PROTOCOL_HEADERS]);

/** How a tool's calls take a key: its key property (the schema's or its policy's), and its policy's `idempotencyKey`. */
export interface Keying {
  property?: string | undefined;
  policy?: string | false | undefined;
}

export class CallContract {
  /** How long the caller waits for the whole call, from now: fixed here, read by every wait and send. */
  readonly deadline: Deadline;
  /** Undecided until the call first knows what its server declared. */
  private keyed: boolean | undefined;
  private keyValue: string | undefined;

  /**
   * @param policy the tool's resolved policy: its `deadlineMs` (or the one derived from it) and `minAttemptMs`.
   * @param outer the contract of the call this one runs inside (a fallback server's call, inside its
   *   primary's): its deadline is never lengthened past the outer one.
   * @param inherited a key the call was given: a fallback's call carries its primary's.
   */
  constructor(policy: DeadlinePolicy, private readonly keying: Keying, outer?: CallContract, inherited?: string) {
    this.deadline = deadlineOf(policy, outer?.deadline);
    this.keyValue = inherited;
  }

  /** The call's key, once it is decided and the call has one. */
  get key(): string | undefined {
    return this.keyed ? this.keyValue : undefined;
  }

  /** Is it not yet known whether the call carries a key (its server never connected)? */
  get keyUndecided(): boolean {
    return this.keyed === undefined;
  }

  /**
   * Decides, once, whether the call carries a key: a tool with a key property always does; any
   * other tool does on a server that declared it honours keys, as the server last declared (kept
   * across reconnects). Before the server has ever connected that is not known, and the decision
   * waits for the first send that has a client; once made it holds for every send after.
   */
  keyFor(connection: Connection): string | undefined {
    if (this.keyed === undefined) {
      const declared = connection.declaresKeys;
      if (this.keying.property === undefined && declared === undefined) return undefined;
      this.keyed = this.keying.property !== undefined || (this.keying.policy !== false && declared === true);
    }
    if (!this.keyed) return undefined;
    // The global Web Crypto (Node 20, workerd, Deno, Bun, browsers), not node:crypto.
    return (this.keyValue ??= crypto.randomUUID());
  }

  /**
   * The `_meta` a send carries, stamped as it goes: the hook's and the tracing entries, the key,
   * and what is left of the deadline (so the server's clock need not agree with ours).
   */
  metaFor(meta: Record<string, unknown> | undefined, connection: Connection): Record<string, unknown> | undefined {
    const key = this.keyFor(connection);
    const deadline = this.deadline.finite ? Math.max(0, Math.floor(this.deadline.remainingMs)) : undefined;
    if (key === undefined && deadline === undefined) return meta;
    const out: Record<string, unknown> = { ...meta };
    if (key !== undefined) out[IDEMPOTENCY_KEY_META] = key;
    if (deadline !== undefined) out[DEADLINE_META] = deadline;
    return out;
  }
}

/**
 * The per-call headers of a send, checked against what can carry them: `undefined` when the call
 * has none. Throws `interceptor_error` (unsent) naming the first header that cannot reach the
 * server as given: one the protocol owns, or one this client's transport cannot carry (stdio has
 * no headers; a v2 client you hold drops `Authorization` and `DPoP` from a request's own headers).
 */
export function identityFor(headers: Record<string, string> | undefined, route: HeaderRoute, serverName: string, stdio: boolean): Record<string, string> | undefined {
  if (!headers) return undefined;
  const names = Object.keys(headers);
  if (names.length === 0) return undefined;
  const owned = names.find((name) => PROTOCOL_HEADERS.has(name.toLowerCase()));
  if (owned) return refuse(serverName, owned, "the MCP transport sets it from the message and the session");
  if (route === "none") {
    const over = stdio ? "over stdio, which has no HTTP headers" : "through a client whose transport takes no per-request headers (a v1 SDK client, or a v2 one over SSE or stdio)";
    return refuse(serverName, names[0]!, `server '${serverName}' is reached ${over}`);
  }
  if (route === "options") {
    const dropped = names.find((name) => SDK_RESERVED.has(name.toLowerCase()));
    if (dropped) return refuse(serverName, dropped, "the v2 SDK client you hold drops it from a request's own headers (the toolkit's own HTTP transports carry it)");
  }
  return headers;
}

function refuse(serverName: string, header: string, why: string): never {
  throw McpToolError.of("interceptor_error", `beforeToolCall set the HTTP header '${header}' for this call, but ${why}; the call was not sent without it.`, {
    serverName,
    outcome: "not_sent",
    transient: false,
    data: { header },
  });
}
