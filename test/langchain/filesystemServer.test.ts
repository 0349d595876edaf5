/**
 * `@modelcontextprotocol/server-filesystem` from npm (2026.8.31), over stdio. The server offers
 * tools only, no resources: its large files reach the model as tool results.
 * - A 5 MB file read whole is a message of over 10 MB (its text twice: `content` and
 *   `structuredContent`), past the SDK's stdio read buffer (10 MiB): the SDK drops it and closes
 *   the transport. That reads as `invalid_result` (the same request fails the same way; the
 *   outcome unknown, the message never read), saying to ask for less, not as a lost connection worth repeating; the next call works.
 * - With `maxMessageBytes` raised, it is cut for the model with a note and whole in the artifact.
 * - `head` reads it in parts.
 * - A missing file and a path outside the allowed directory are the server's own `isError`
 *   answers, one readable line each.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpToolkit } from "../../src/index.js";

const require = createRequire(import.meta.url);
const SERVER = join(require.resolve("@modelcontextprotocol/server-filesystem/package.json"), "..", "dist", "index.js");
const LINES = 120_000;

let dir: string;
let toolkit: McpToolkit;
let roomy: McpToolkit;
let big: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mcp-files-"));
  big = Array.from({ length: LINES }, (_, n) => `line ${String(n).padStart(6, "0")} of a large file, forty-odd bytes`).join("\n");
  writeFileSync(join(dir, "big.txt"), big);
  toolkit = await McpToolkit.connect({ servers: { files: { transport: "stdio", command: process.execPath, args: [SERVER, dir] } }, warnings: "silent" });
  roomy = await McpToolkit.connect({ servers: { files: { transport: "stdio", command: process.execPath, args: [SERVER, dir], maxMessageBytes: 32 * 1024 * 1024 } }, warnings: "silent" });
});
afterAll(async () => {
  await toolkit?.close();
  await roomy?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const read = (args: Record<string, unknown>, via = toolkit) => via.getTool("read_text_file")!.invoke({ type: "tool_call", id: "r", name: "read_text_file", args }) as Promise<ToolMessage>;

describe("server-filesystem from npm, over stdio", () => {
  it("reads a 5 MB file past the SDK's message limit as invalid_result, saying to ask for less, and goes on", async () => {
    const whole = await read({ path: join(dir, "big.txt") });
    expect(whole.status).toBe("error");
    expect(whole.artifact).toMatchObject({ reason: "invalid_result", transient: false, outcome: "unknown", data: { maxMessageBytes: 10 * 1024 * 1024 } });
    expect(String(whole.content)).toContain("larger than the client accepts in one message");
    // The connection started again: the next call is answered.
    expect(String((await read({ path: join(dir, "big.txt"), head: 1 })).content)).toBe("line 000000 of a large file, forty-odd bytes");
  });

  it("with maxMessageBytes raised, cuts it for the model with a note, keeps it whole in the artifact, and reads it in parts", async () => {
    expect(big.length).toBeGreaterThan(5_000_000);
    const whole = await read({ path: join(dir, "big.txt") }, roomy);
    expect(whole.status, String(whole.content).slice(0, 400)).toBe("success");
    const text = String(whole.content);
    // The default maxResultLength (100,000 characters), and a note of how much is left out.
    expect(text.length).toBeLessThan(101_000);
    expect(text.startsWith("line 000000 of a large file")).toBe(true);
    expect(text).toMatch(/truncat|cut|more characters/i);
    expect(JSON.stringify(whole.artifact)).toContain(`line ${String(LINES - 1).padStart(6, "0")}`);
    const head = await read({ path: join(dir, "big.txt"), head: 3 });
    expect(String(head.content).split("\n")).toEqual(["line 000000 of a large file, forty-odd bytes", "line 000001 of a large file, forty-odd bytes", "line 000002 of a large file, forty-odd bytes"]);
  });

  it("answers a missing file and a path outside its directory with the server's own error, one line each", async () => {
    const missing = await read({ path: join(dir, "missing.txt") });
    expect(missing.status).toBe("error");
    expect(missing.artifact).toMatchObject({ reason: "tool_error", kind: "domain", outcome: "executed" });
    expect(String(missing.content)).toMatch(/^Error: Tool 'read_text_file' failed \(tool_error\): ENOENT: no such file or directory/);
    const outside = await read({ path: "/etc/passwd" });
    expect(outside.artifact).toMatchObject({ reason: "tool_error" });
    expect(String(outside.content)).toContain("Access denied - path outside allowed directories");
    expect(String(outside.content)).not.toContain("\n");
  });
});
