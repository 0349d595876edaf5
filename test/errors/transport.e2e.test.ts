/**
 * ERRORS.md, "Transport errors" below HTTP: a real stdio child process that crashes, is killed,
 * cannot be started or stops reading; and real sockets on 127.0.0.1 that are refused, reset,
 * dropped or never answered, plus a real DNS failure.
 */
import type { ChildProcess } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { normalize } from "../../src/errors/normalize.js";
import { buildFixtureServer, newState } from "../servers/fixture.js";
import { startHttpFixture } from "../servers/http.js";
import { connectInMemory } from "../servers/memory.js";
import { stdioFixtureCommand } from "../servers/stdio.js";
import { closedPort, eventually, expectClassified, rejectionOf, useCleanup } from "./helpers.js";

const defer = useCleanup();

function newClient(): Client {
  const client = new Client({ name: "test-client", version: "1.0.0" });
  defer(() => client.close());
  return client;
}

/** The stdio fixture as a child process, with its stderr collected and its ChildProcess at hand. */
async function stdioFixture(): Promise<{ client: Client; transport: StdioClientTransport; child: ChildProcess; stderr: () => string }> {
  const transport = new StdioClientTransport({ ...stdioFixtureCommand(), stderr: "pipe" });
  let stderr = "";
  transport.stderr!.on("data", (chunk) => (stderr += String(chunk)));
  const client = newClient();
  await client.connect(transport);
  // The SDK keeps no exit code: its 'close' handler drops it and forgets the process. A caller who
  // wants `exit` context has to hold the ChildProcess itself (here: the transport's private field).
  const child = (transport as unknown as { _process: ChildProcess })._process;
  return { client, transport, child, stderr: () => stderr };
}

describe("stdio: the server process", () => {
  it("rejects the in-flight call with the SDK's -32000 'Connection closed' when the process exits mid-call: connection_closed", async () => {
    const { client, child, stderr } = await stdioFixture();
    const error = await rejectionOf(client.callTool({ name: "crash", arguments: { code: 3 } }));
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32000, message: "MCP error -32000: Connection closed", data: undefined });

    // Without context the local ConnectionClosed is still recognised.
    expectClassified(normalize(error), { reason: "connection_closed", kind: "transport", transient: true, outcome: "unknown", code: -32000 }, error);
    expect(child.exitCode).toBe(3);
    await eventually(() => expect(stderr()).toContain("fatal: database connection lost"));
  });

  it("names the exit code and the stderr tail when the context says the transport closed", async () => {
    const { client, child, stderr } = await stdioFixture();
    const error = await rejectionOf(client.callTool({ name: "crash", arguments: { code: 3 } }));
    await eventually(() => expect(stderr()).toContain("fatal"));

    const e = normalize(error, { toolName: "crash", transportClosed: true, exit: { exitCode: child.exitCode, signal: child.signalCode, stderrTail: stderr().trim() } });
    expectClassified(e, { reason: "connection_closed", kind: "transport", transient: true, outcome: "unknown", code: -32000 }, error);
    expect(e.message).toBe(
      "The connection to the server closed during the call. The server process exited with code 3. Last stderr: fatal: database connection lost",
    );
    expect(e.data).toEqual({ exitCode: 3, signal: null, stderr: "fatal: database connection lost" });
  });

  it("names the signal when the process is killed mid-call", async () => {
    const { client, transport, child } = await stdioFixture();
    let killed = false;
    const error = await rejectionOf(
      client.callTool({ name: "slow", arguments: { ms: 60_000, progressEveryMs: 10 } }, undefined, {
        onprogress: () => {
          if (killed) return;
          killed = true;
          process.kill(transport.pid!, "SIGKILL");
        },
      }),
    );
    expect(error).toMatchObject({ code: -32000, message: "MCP error -32000: Connection closed" });
    expect(child.signalCode).toBe("SIGKILL");
    const e = normalize(error, { transportClosed: true, exit: { exitCode: child.exitCode, signal: child.signalCode } });
    expectClassified(e, { reason: "connection_closed", kind: "transport", transient: true, outcome: "unknown", code: -32000 }, error);
    expect(e.message).toBe("The connection to the server closed during the call. The server process was killed by SIGKILL.");
  });

  it("forgets the process after it ends: pid is null and no exit code is exposed", async () => {
    const { client, transport } = await stdioFixture();
    expect(transport.pid).toEqual(expect.any(Number));
    await rejectionOf(client.callTool({ name: "crash", arguments: { code: 1 } }));
    expect(transport.pid).toBeNull();
  });

  it("fails the next call with Error('Not connected') once the process is gone: not_connected, not sent", async () => {
    const { client } = await stdioFixture();
    await rejectionOf(client.callTool({ name: "crash", arguments: { code: 1 } }));
    const error = await rejectionOf(client.callTool({ name: "echo", arguments: { text: "hi" } }));
    expect(error).toMatchObject({ message: "Not connected" });
    expectClassified(normalize(error), { reason: "not_connected", kind: "transport", transient: true, outcome: "not_sent" }, error);
  });

  it("classifies a command that does not exist (spawn ENOENT) as spawn_failed and names the command", async () => {
    const client = newClient();
    const error = await rejectionOf(client.connect(new StdioClientTransport({ command: "mcp-server-that-does-not-exist", stderr: "pipe" })));
    expect(error).toMatchObject({ code: "ENOENT", syscall: "spawn mcp-server-that-does-not-exist", path: "mcp-server-that-does-not-exist" });
    const e = expectClassified(normalize(error), { reason: "spawn_failed", kind: "transport", transient: false, outcome: "not_sent" }, error);
    expect(e.message).toBe("Could not start the server command 'mcp-server-that-does-not-exist': command not found.");
    expect(e.data).toEqual({ errno: "ENOENT", command: "mcp-server-that-does-not-exist" });
  });

  it("classifies a command that is not executable (spawn EACCES) as spawn_failed and names the command", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mcp-errors-"));
    defer(() => rm(dir, { recursive: true, force: true }));
    const command = join(dir, "server.sh");
    await writeFile(command, "#!/bin/sh\nexit 0\n");
    await chmod(command, 0o644);
    const client = newClient();
    const error = await rejectionOf(client.connect(new StdioClientTransport({ command, stderr: "pipe" })));
    expect(error).toMatchObject({ code: "EACCES", syscall: `spawn ${command}` });
    const e = expectClassified(normalize(error), { reason: "spawn_failed", kind: "transport", transient: false, outcome: "not_sent" }, error);
    expect(e.message).toBe(`Could not start the server command '${command}': permission denied.`);
  });

  it("reports EPIPE through onerror when the process stops reading its stdin: connection_reset", async () => {
    // A server that completes the handshake, then closes its stdin (and says so on stderr) and stays alive.
    const script = `
      let buffer = "";
      process.stdin.on("data", (chunk) => {
        buffer += chunk;
        let nl;
        while ((nl = buffer.indexOf("\\n")) >= 0) {
          const msg = JSON.parse(buffer.slice(0, nl));
          buffer = buffer.slice(nl + 1);
          if (msg.method === "initialize") {
            const result = { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "deaf", version: "1" } };
            process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }) + "\\n");
          } else if (msg.method === "notifications/initialized") {
            process.stdin.destroy();
            require("fs").closeSync(0); // destroy() alone leaves fd 0 open: libuv never closes stdio fds
            process.stderr.write("stdin closed\\n");
            setInterval(() => {}, 1000);
            return;
          }
        }
      });`;
    const transport = new StdioClientTransport({ command: process.execPath, args: ["-e", script], stderr: "pipe" });
    let stderr = "";
    transport.stderr!.on("data", (chunk) => (stderr += String(chunk)));
    const client = newClient();
    const errors: unknown[] = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);
    defer(() => (transport.pid ? process.kill(transport.pid, "SIGKILL") : undefined));
    await eventually(() => expect(stderr).toContain("stdin closed"));

    // The write fails at once, but StdioClientTransport.send() never rejects: the failure only
    // reaches onerror, and the call waits (for its timeout, or here until the process ends).
    const call = rejectionOf(client.callTool({ name: "echo", arguments: { text: "hi" } }));
    await eventually(() => expect(errors.some((e) => (e as { code?: string }).code === "EPIPE")).toBe(true));
    const epipe = errors.find((e) => (e as { code?: string }).code === "EPIPE");
    expect(epipe).toMatchObject({ message: "write EPIPE", syscall: "write" });
    expectClassified(normalize(epipe), { reason: "connection_reset", kind: "transport", transient: true, outcome: "unknown" }, epipe);
    expectClassified(normalize(epipe, { notSent: true }), { reason: "connection_reset", kind: "transport", transient: true, outcome: "not_sent" }, epipe);

    process.kill(transport.pid!, "SIGKILL");
    const error = await call;
    expectClassified(normalize(error), { reason: "connection_closed", kind: "transport", transient: true, outcome: "unknown", code: -32000 }, error);
  });
});

describe("in memory", () => {
  it("fails a call after client.close() with Error('Not connected'): not_connected, not sent", async () => {
    const { client, close } = await connectInMemory(buildFixtureServer(newState()));
    await close();
    const error = await rejectionOf(client.callTool({ name: "echo", arguments: { text: "hi" } }));
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ message: "Not connected" });
    const e = expectClassified(normalize(error), { reason: "not_connected", kind: "transport", transient: true, outcome: "not_sent" }, error);
    expect(e.message).toBe("Not connected to the server.");
  });
});

describe("sockets on 127.0.0.1", () => {
  it("classifies connecting to a closed port ('fetch failed', cause ECONNREFUSED) as connection_refused and names the address", async () => {
    const port = await closedPort();
    const client = newClient();
    const error = await rejectionOf(client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`))));
    expect(error).toMatchObject({ name: "TypeError", message: "fetch failed", cause: { code: "ECONNREFUSED" } });
    const e = expectClassified(normalize(error), { reason: "connection_refused", kind: "transport", transient: true, outcome: "not_sent" }, error);
    expect(e.message).toBe(`Connection refused by 127.0.0.1:${port}.`);
  });

  it("classifies a server that resets the connection (cause ECONNRESET) as connection_reset: outcome unknown", async () => {
    const server = createServer((req) => req.socket.resetAndDestroy());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    defer(() => new Promise((resolve) => server.close(resolve)));
    const port = (server.address() as { port: number }).port;
    const client = newClient();
    const error = await rejectionOf(client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`))));
    expect(error).toMatchObject({ message: "fetch failed", cause: { code: "ECONNRESET" } });
    expectClassified(normalize(error), { reason: "connection_reset", kind: "transport", transient: true, outcome: "unknown" }, error);
  });

  it("classifies a socket destroyed before the response (dropNext: cause UND_ERR_SOCKET 'other side closed') as connection_reset", async () => {
    const http = await startHttpFixture();
    defer(() => http.close());
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(http.url));
    http.dropNext();
    const error = await rejectionOf(client.callTool({ name: "echo", arguments: { text: "hi" } }));
    expect(error).toMatchObject({ message: "fetch failed", cause: { code: "UND_ERR_SOCKET", message: "other side closed" } });
    expectClassified(normalize(error), { reason: "connection_reset", kind: "transport", transient: true, outcome: "unknown" }, error);
    // Here the tool never ran, but the client cannot know that: "unknown" is the honest outcome.
    expect(http.state.calls).toEqual([]);
  });

  it("classifies a connection dropped while the tool runs (it did execute) as connection_reset: outcome unknown", async () => {
    const http = await startHttpFixture();
    defer(() => http.close());
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(http.url));
    const error = await rejectionOf(client.callTool({ name: "transfer", arguments: { key: "t-1", amount: 10 } }));
    expect(error).toMatchObject({ message: "fetch failed", cause: { code: "UND_ERR_SOCKET" } });
    expectClassified(normalize(error), { reason: "connection_reset", kind: "transport", transient: true, outcome: "unknown" }, error);
    expect(http.state.executions.get("t-1")).toBe(1);
  });

  it("classifies a host under .invalid (cause ENOTFOUND) as dns_failure, not transient", async () => {
    const client = newClient();
    const error = await rejectionOf(client.connect(new StreamableHTTPClientTransport(new URL("http://mcp.invalid/mcp"))));
    expect(error).toMatchObject({ message: "fetch failed", cause: { code: "ENOTFOUND", hostname: "mcp.invalid" } });
    expectClassified(normalize(error), { reason: "dns_failure", kind: "transport", transient: false, outcome: "not_sent" }, error);
  });

  // A connect that is never accepted waits out undici's fixed 10 s: test/slow/connectTimeout.test.ts (npm run test:faults).
});
