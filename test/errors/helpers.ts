/**
 * Shared helpers for the error-classification tests: catching a real rejection, asserting a
 * classification, closing everything a test opened, and a few real failure producers.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import { connect, type Socket } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, expect, vi } from "vitest";
import { McpToolError } from "../../src/errors/McpToolError.js";
import type { ErrorKind, Outcome, Reason } from "../../src/errors/reasons.js";

/** The error a promise rejects with; fails the test if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    const value = await promise;
    throw new Error(`expected a rejection, got ${JSON.stringify(value)?.slice(0, 200)}`);
  } catch (error) {
    return error;
  }
}

export interface Expected {
  reason: Reason;
  kind: ErrorKind;
  transient: boolean;
  outcome: Outcome;
  /** Asserted as given; `undefined` (the default) asserts there is none. */
  code?: number;
  status?: number;
  retryAfterMs?: number;
}

/**
 * Asserts the classification, that `code`, `status` and `retryAfterMs` are exactly as expected
 * (absent unless given), and that `cause` is the original error object.
 */
export function expectClassified(error: McpToolError, want: Expected, cause?: unknown): McpToolError {
  expect(error).toBeInstanceOf(McpToolError);
  expect({
    reason: error.reason,
    kind: error.kind,
    transient: error.transient,
    outcome: error.outcome,
    code: error.code,
    status: error.status,
    retryAfterMs: error.retryAfterMs,
  }).toEqual({ code: undefined, status: undefined, retryAfterMs: undefined, ...want });
  if (cause !== undefined) expect(error.cause).toBe(cause);
  return error;
}

/**
 * Closers run after each test, last registered first, even when the test failed.
 * Call once per file: `const defer = useCleanup();` then `defer(() => client.close())`.
 */
export function useCleanup(): (close: () => unknown) => void {
  const closers: Array<() => unknown> = [];
  afterEach(async () => {
    while (closers.length > 0) {
      const close = closers.pop()!;
      try {
        await close();
      } catch {
        // already closed, or failed to start: nothing left to release
      }
    }
  });
  return (close) => {
    closers.push(close);
  };
}

/** A port on 127.0.0.1 that was just listening and now is not: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A listening port whose accept queue is full: a child process listens with a backlog of 1 and
 * then blocks its event loop, so it never accepts; two filler connections fill the queue and the
 * kernel drops every further SYN. A connect to it hangs until the client's connect timeout.
 */
export async function blackholePort(): Promise<{ port: number; close: () => void }> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      "-e",
      "const s = require('net').createServer();" +
        "s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {" +
        "  process.stdout.write(s.address().port + '\\n');" +
        "  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);" +
        "});",
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.stdout!.once("data", (chunk) => resolve(Number(String(chunk).trim())));
  });
  const fillers: Socket[] = [connect(port, "127.0.0.1"), connect(port, "127.0.0.1")];
  await Promise.all(fillers.map((s) => new Promise((resolve) => s.once("connect", resolve))));
  return {
    port,
    close: () => {
      for (const s of fillers) s.destroy();
      child.kill("SIGKILL");
    },
  };
}

/** What a hand-driven server answers to one request: a raw `result` or a raw `error`. */
export type RawAnswer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/**
 * A client connected over an in-memory pair whose server side is driven by hand, so it can send
 * what no SDK server would: a result that breaks the schema, or an error message without the
 * SDK's "MCP error" prefix. It answers `initialize` itself and every other request with `answer`.
 */
export async function connectRawServer(
  answer: (request: { method: string; params?: Record<string, unknown> }) => RawAnswer,
): Promise<{ client: Client; close: () => Promise<void> }> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  serverTransport.onmessage = (message: JSONRPCMessage) => {
    if (!("method" in message) || !("id" in message)) return;
    const reply =
      message.method === "initialize"
        ? {
            result: {
              protocolVersion: LATEST_PROTOCOL_VERSION,
              capabilities: { tools: {} },
              serverInfo: { name: "raw", version: "1.0.0" },
            },
          }
        : answer({ method: message.method, params: message.params as Record<string, unknown> | undefined });
    void serverTransport.send({ jsonrpc: "2.0", id: message.id, ...reply } as JSONRPCMessage);
  };
  await serverTransport.start();
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(clientTransport);
  return {
    client,
    close: async () => {
      await client.close();
      await serverTransport.close();
    },
  };
}

/** Polls until `assertion` passes; generous, so a loaded machine does not flake. No timing is asserted. */
export function eventually<T>(assertion: () => T): Promise<T> {
  return vi.waitFor(assertion, { timeout: 10_000, interval: 20 });
}
