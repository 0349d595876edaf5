/**
 * Many parallel calls whose arguments fill a stdio server's stdin (a pipe holds 64 KB): every
 * request arrives whole and in order, and Node prints no MaxListenersExceededWarning. The SDK's
 * own send adds a `drain` listener per write that finds the pipe full; 11 such sends warned.
 */
import { afterEach, describe, expect, it } from "vitest";
import { McpToolkit } from "../../src/index.js";
import { childPids } from "../chaos/support.js";
import { stdioFixtureCommand } from "../servers/stdio.js";
import { everythingStdioCommand } from "../servers/tasks/everything.js";

const warnings: Error[] = [];
const onWarning = (warning: Error) => void warnings.push(warning);
let toolkit: McpToolkit | undefined;

afterEach(async () => {
  process.off("warning", onWarning);
  await toolkit?.close();
  toolkit = undefined;
});

describe("a stdio server's stdin filled by parallel calls", () => {
  it("takes 64 calls of 20 KB each: every answer is its own call's, and no listener warning", async () => {
    warnings.length = 0;
    process.on("warning", onWarning);
    toolkit = await McpToolkit.connect({ servers: { s: { transport: "stdio", ...stdioFixtureCommand() } } });
    const echo = toolkit.getTool("echo")!;
    const texts = Array.from({ length: 64 }, (_, i) => `${i}:${String.fromCharCode(97 + (i % 26)).repeat(20_000)}`);
    const replies = await Promise.all(texts.map((text) => echo.invoke({ text })));
    expect(replies).toEqual(texts);
    // A warning is emitted on the next tick: let it come.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning").map((w) => w.message)).toEqual([]);
  });

  it("takes the same from server-everything over stdio: 64 parallel echoes of 20 KB", async () => {
    warnings.length = 0;
    process.on("warning", onWarning);
    toolkit = await McpToolkit.connect({ servers: { everything: { transport: "stdio", ...everythingStdioCommand() } } });
    const echo = toolkit.getTool("echo")!;
    const messages = Array.from({ length: 64 }, (_, i) => `${i}:${"z".repeat(20_000)}`);
    const replies = (await Promise.all(messages.map((message) => echo.invoke({ message })))).map(String);
    // server-everything answers "Echo: <message>".
    replies.forEach((reply, i) => expect(reply.endsWith(messages[i]!) && reply.length < messages[i]!.length + 20, `reply ${i}`).toBe(true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning").map((w) => w.message)).toEqual([]);
  }, 30_000);

  it("settles every call waiting on a full pipe when server-everything is killed (-9), and the next call goes to a new process", async () => {
    warnings.length = 0;
    process.on("warning", onWarning);
    const before = new Set(childPids());
    toolkit = await McpToolkit.connect({ servers: { everything: { transport: "stdio", ...everythingStdioCommand() } } });
    const [server] = childPids().filter((pid) => !before.has(pid));
    expect(server).toBeDefined();
    const echo = toolkit.getTool("echo")!;
    const messages = Array.from({ length: 64 }, (_, i) => `${i}:${"k".repeat(20_000)}`);
    const calls = messages.map((message, i) => echo.invoke({ type: "tool_call", id: `c${i}`, name: "echo", args: { message } }));
    // Killed while most of the 1.3 MB still waits for the pipe to drain.
    process.kill(server!, "SIGKILL");
    const replies = (await Promise.all(calls)) as { status?: string; content: unknown; artifact?: { reason?: string } }[];
    for (const [i, reply] of replies.entries()) {
      // A call the server answered before it died is its own; the others failed with the process.
      if (reply.status === "error") expect(reply.artifact?.reason, `call ${i}`).toBe("connection_closed");
      else expect(String(reply.content).endsWith(messages[i]!), `call ${i}`).toBe(true);
    }
    expect(replies.some((r) => r.status === "error")).toBe(true);
    expect(String(await echo.invoke({ message: "after" }))).toContain("after");
    expect(childPids().filter((pid) => !before.has(pid))).not.toContain(server);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning").map((w) => w.message)).toEqual([]);
  }, 30_000);
});
