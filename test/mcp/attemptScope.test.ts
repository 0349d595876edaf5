import { Client as V2Client, InMemoryTransport as V2InMemoryTransport } from "@modelcontextprotocol/client";
import { describe, expect, it, vi } from "vitest";
import { callToolWith, type AnyClient } from "../../src/mcp/session/clients.js";
import { AttemptScope } from "../../src/policy/TimeoutPolicy.js";
import { buildFixtureServer, newState } from "../servers/fixture.js";
import { connectInMemory } from "../servers/memory.js";
import { buildV2Server, newV2State } from "../servers/v2/fixture.js";
import { closeAfterEach } from "../servers/cleanups.js";

const cleanups = closeAfterEach();

/** A client of one SDK line over memory to that line's fixture server, and what the server saw. */
interface Line {
  name: string;
  connect: () => Promise<{ client: AnyClient; state: { calls: string[]; aborted: number } }>;
}

const LINES: Line[] = [
  {
    name: "v1 (@modelcontextprotocol/sdk)",
    connect: async () => {
      const state = newState();
      const { client, close } = await connectInMemory(buildFixtureServer(state));
      cleanups.push(close);
      return { client, state };
    },
  },
  {
    name: "v2 (@modelcontextprotocol/client)",
    connect: async () => {
      const state = newV2State();
      const server = buildV2Server(state);
      const [clientSide, serverSide] = V2InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new V2Client({ name: "test-client", version: "1.0.0" });
      await client.connect(clientSide);
      cleanups.push(async () => {
        await client.close();
        await server.close();
      });
      return { client, state };
    },
  },
];

const slow = { name: "slow", arguments: { ms: 20_000 } };
const options = { timeoutMs: 150, resetTimeoutOnProgress: false };

// The attempt hands the SDK's tools/call its own AbortSignal: each SDK line ends the request with it.
describe.each(LINES)("the request signal of an attempt, on the $name client", (line) => {
  it("ends the request when the attempt's timer fires: the call rejects and the server's handler is cancelled", async () => {
    const { client, state } = await line.connect();
    const scope = new AttemptScope(options);
    cleanups.push(async () => scope.dispose());
    await expect(callToolWith(client, slow, { signal: scope.signal, timeout: 60_000 })).rejects.toThrow(/timed out/i);
    expect(scope.timedOut).toBe(true);
    await vi.waitFor(() => expect(state.aborted).toBe(1));
  });

  it("ends the request when the caller aborts, with the caller's reason", async () => {
    const { client, state } = await line.connect();
    const caller = new AbortController();
    const scope = new AttemptScope({ ...options, timeoutMs: 60_000 }, caller.signal);
    cleanups.push(async () => scope.dispose());
    const call = callToolWith(client, slow, { signal: scope.signal, timeout: 60_000 });
    await vi.waitFor(() => expect(state.calls).toContain("slow"));
    caller.abort(new Error("the user left"));
    await expect(call).rejects.toThrow(/the user left/);
    expect(scope.reason).toBe(caller.signal.reason);
    await vi.waitFor(() => expect(state.aborted).toBe(1));
  });

  it("refuses a request whose attempt had already ended, without sending it", async () => {
    const { client, state } = await line.connect();
    const scope = new AttemptScope(options);
    scope.abort(new Error("ended before sending"));
    scope.dispose();
    await expect(callToolWith(client, slow, { signal: scope.signal, timeout: 60_000 })).rejects.toThrow(/ended before sending/);
    expect(state.calls).not.toContain("slow");
  });
});

describe("an attempt's signal", () => {
  it("aborts with the first reason", () => {
    const scope = new AttemptScope({ timeoutMs: 60_000, resetTimeoutOnProgress: false });
    const signal = scope.signal;
    scope.abort("first");
    scope.abort("second");
    scope.dispose();
    expect(signal).toBeInstanceOf(AbortSignal);
    expect([signal.aborted, signal.reason, scope.aborted, scope.reason]).toEqual([true, "first", true, "first"]);
  });

  it("is aborted from the start when the caller's signal already is, and no timer runs", () => {
    const caller = new AbortController();
    caller.abort("gone");
    const scope = new AttemptScope({ timeoutMs: 1, resetTimeoutOnProgress: false }, caller.signal);
    expect([scope.aborted, scope.reason]).toEqual([true, "gone"]);
    scope.dispose();
    expect(scope.timedOut).toBe(false);
  });

  it("stops listening to the caller's signal once the attempt is over", () => {
    const caller = new AbortController();
    const scope = new AttemptScope({ timeoutMs: 60_000, resetTimeoutOnProgress: false }, caller.signal);
    scope.dispose();
    caller.abort("late");
    expect(scope.aborted).toBe(false);
  });
});
