/**
 * The SDK internals the toolkit still depends on, each read here and nowhere else. Everything
 * else goes through public API: the transports' `fetch` option, `TransportSendOptions`
 * (`requestSignal`, `onRequestStreamEnd`), handlers a transport holds before `connect`.
 * test/mcp/sdkInternals.test.ts drives a real SDK through each of these and fails when an update
 * changes one, so a change shows up as a failing test instead of a quiet loss of facts.
 */
import type { ChildProcess } from "node:child_process";
import type { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

/**
 * The child process of a started v2 stdio transport. The SDK keeps it private (`_process`) and
 * reports the process's end without its exit code or signal; the public `pid` and `stderr` say
 * nothing about how it ended. Read right after `start()`, and by each send that writes to its
 * stdin itself (stdio.ts, one `drain` listener for all): the SDK clears it on close.
 */
export function childProcessOf(transport: StdioClientTransport): ChildProcess | undefined {
  const child = (transport as unknown as { _process?: unknown })._process;
  return isChildProcess(child) ? child : undefined;
}

function isChildProcess(value: unknown): value is ChildProcess {
  return typeof value === "object" && value !== null && typeof (value as ChildProcess).once === "function" && typeof (value as ChildProcess).kill === "function";
}

/**
 * Reads a JSON answer where the SDK reads it. The v2 streamable transport takes a JSON answer's
 * body with `response.json()`, once; `read` replaces that call on this one response and must
 * return what `json()` would (the parsed body) or throw what it would. Nothing is copied: the
 * alternative, handing the SDK a new Response over a body already read, costs a copy and an
 * encode of every answer on the success path (about 1.4× the SDK's own body handling, measured
 * side by side), which the SDK does not expose a way to avoid.
 */
export function readJsonAnswer(response: Response, read: (text: () => Promise<string>) => Promise<unknown>): void {
  const text = response.text.bind(response);
  Object.defineProperty(response, "json", { value: () => read(text), configurable: true, writable: true });
}

/**
 * The per-request `_meta` envelope a connected 2026-07-28 v2 client puts on each of its own
 * requests (protocol version, client info, client capabilities), for the requests the Tasks
 * extension sends past the client (./rawChannel.ts). The client builds it in a protected method,
 * `_outboundMetaEnvelope()`, from its private `_clientInfo` and `_capabilities`; there is no
 * public getter for either. Undefined on a legacy connection, or when the SDK no longer has it.
 */
export function outboundEnvelopeOf(client: object): Readonly<Record<string, unknown>> | undefined {
  const build = (client as { _outboundMetaEnvelope?: unknown })._outboundMetaEnvelope;
  if (typeof build !== "function") return undefined;
  const envelope: unknown = build.call(client);
  return typeof envelope === "object" && envelope !== null ? (envelope as Record<string, unknown>) : undefined;
}
