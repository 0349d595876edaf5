import { Client as V2Client, InMemoryTransport as V2InMemoryTransport } from "@modelcontextprotocol/client";
import { describe, expect, it, vi } from "vitest";
import { callToolWith, type AnyClient } from "../../src/mcp/session/clients.js";
import { RequestSignal } from "../../src/policy/RequestSignal.js";
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

// The attempt hands the SDK's tools/call a signal that is not an AbortSignal (see RequestSignal.ts).
// These pin what each SDK line must do with it; they fail if an SDK starts to need more of one.
describe.each(LINES)("the request signal of an attempt, on the $name client", (line) => {
  it("ends the request when the attempt's timer fires: the call rejects and the server's handler is cancelled", async () => {
    const { client, state } = await line.connect();
    const scope = new AttemptScope(options);
    cleanups.push(async () => scope.dispose());
    expect(scope.requestSignal).toBeInstanceOf(RequestSignal);
    await expect(callToolWith(client, slow, { signal: scope.requestSignal, timeout: 60_000 })).rejects.toThrow(/timed out/i);
    expect(scope.timedOut).toBe(true);
    await vi.waitFor(() => expect(state.aborted).toBe(1));
  });

  it("ends the request when the caller aborts, with the caller's reason", async () => {
    const { client, state } = await line.connect();
    const caller = new AbortController();
    const scope = new AttemptScope({ ...options, timeoutMs: 60_000 }, caller.signal);
    cleanups.push(async () => scope.dispose());
    const call = callToolWith(client, slow, { signal: scope.requestSignal, timeout: 60_000 });
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
    await expect(callToolWith(client, slow, { signal: scope.requestSignal, timeout: 60_000 })).rejects.toThrow(/ended before sending/);
    expect(state.calls).not.toContain("slow");
  });
});

describe("an attempt's two signals", () => {
  it("abort together with the first reason, whichever was made first, and a real AbortSignal made after the end is aborted already", () => {
    const scope = new AttemptScope({ timeoutMs: 60_000, resetTimeoutOnProgress: false });
    const request = scope.requestSignal;
    scope.abort("first");
    scope.abort("second");
    scope.dispose();
    expect([request.aborted, request.reason]).toEqual([true, "first"]);
    expect(scope.signal).toBeInstanceOf(AbortSignal);
    expect([scope.signal.aborted, scope.signal.reason]).toEqual([true, "first"]);
  });

  it("share the real AbortSignal once it exists, so a request after a hook's wait gets that one", () => {
    const scope = new AttemptScope({ timeoutMs: 60_000, resetTimeoutOnProgress: false });
    const real = scope.signal;
    expect(scope.requestSignal).toBe(real);
    scope.dispose();
  });

  it("stop listening to the caller's signal once the attempt is over", () => {
    const caller = new AbortController();
    const scope = new AttemptScope({ timeoutMs: 60_000, resetTimeoutOnProgress: false }, caller.signal);
    scope.dispose();
    caller.abort("late");
    expect(scope.aborted).toBe(false);
  });
});

describe("RequestSignal", () => {
  it("calls each abort listener once, functions and listener objects alike, with an abort event", () => {
    const signal = new RequestSignal(false, undefined);
    const heard: string[] = [];
    const fn = (event: { type: string }) => heard.push(`fn ${event.type}`);
    const object = { handleEvent: () => heard.push("object") };
    signal.addEventListener("abort", fn);
    signal.addEventListener("abort", fn);
    signal.addEventListener("abort", object);
    signal.addEventListener("other", () => heard.push("other"));
    signal.onabort = () => heard.push("onabort");
    signal.fire("why");
    signal.fire("again");
    expect(heard).toEqual(["onabort", "fn abort", "object"]);
    expect([signal.aborted, signal.reason]).toEqual([true, "why"]);
    expect(() => signal.throwIfAborted()).toThrow("why");
  });

  it("forgets a removed listener, and never calls one added after the abort", () => {
    const signal = new RequestSignal(false, undefined);
    const heard: string[] = [];
    const removed = () => heard.push("removed");
    signal.addEventListener("abort", removed);
    signal.removeEventListener("abort", removed);
    signal.fire("why");
    signal.addEventListener("abort", () => heard.push("late"));
    expect(heard).toEqual([]);
  });
});
