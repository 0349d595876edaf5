/**
 * A stdio server that exits before it answers `initialize` failed to start: permanent, nothing
 * sent, named from what the process said (a misspelt npx package, a script that does not exist),
 * never "closed during the call". An optional one is tried again in the background with waits
 * that keep doubling up to 5 minutes, a bounded number of times (serverStatusTruth.test.ts), and
 * its status says when the next try is.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { McpToolkit } from "../../src/index.js";
import { isMcpToolError } from "../../src/errors/McpToolError.js";
import { backgroundDelay, START_FAILED_MAX_ATTEMPTS, START_FAILED_MAX_DELAY_MS } from "../../src/langchain/backgroundConnect.js";
import { DEFAULT_RECONNECT } from "../../src/config/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater } from "../servers/replies.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

async function connectError(server: Parameters<typeof McpToolkit.connect>[0]["servers"][string]) {
  try {
    later(await McpToolkit.connect({ servers: { s: server } }));
  } catch (error) {
    if (isMcpToolError(error)) return error;
    throw error;
  }
  throw new Error("connect() succeeded");
}

describe("a stdio server that exits before it answers initialize", () => {
  it("whose script does not exist fails server_start_failed, permanent and unsent, naming the path", async () => {
    const missing = join(mkdtempSync(join(tmpdir(), "mcp-start-")), "server.js");
    const error = await connectError({ transport: "stdio", command: process.execPath, args: [missing] });
    expect(error).toMatchObject({ reason: "server_start_failed", outcome: "not_sent", transient: false, serverName: "s" });
    expect(error.message).toContain(`the script '${missing}' does not exist`);
    expect(error.message).toMatch(/exited with code 1 before it answered initialize/);
    expect(error.message).not.toMatch(/during the call/);
    expect(error.data).toMatchObject({ exitCode: 1 });
  });

  it("whose npx package is misspelt names the package (npm's E404)", async () => {
    const error = await connectError({ transport: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-everythingg"], connectTimeoutMs: 60_000 });
    expect(error).toMatchObject({ reason: "server_start_failed", outcome: "not_sent", transient: false });
    expect(error.message).toContain("npm has no package '@modelcontextprotocol/server-everythingg' (E404)");
  }, 90_000);

  it("when optional, is tried again in the background and its status says when", async () => {
    const missing = join(mkdtempSync(join(tmpdir(), "mcp-start-")), "server.js");
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "stdio", command: process.execPath, args: [missing], required: false } } }));
    let status = toolkit.status().s!;
    const deadline = Date.now() + 10_000;
    while (status.nextAttemptAt === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      status = toolkit.status().s!;
    }
    expect(status).toMatchObject({ state: "failed", lastError: { reason: "server_start_failed" } });
    expect(status.nextAttemptAt).toBeGreaterThan(Date.now() - 1_000);
  });
});

describe("the background waits of a server that cannot start", () => {
  it("double up to 5 minutes, where other failures stop at reconnect.maxDelayMs (until the last of its tries)", () => {
    // With a first wait of a minute, the 5-minute cap is reached within its bounded tries.
    const reconnect = { minDelayMs: 60_000 };
    const waits = (reason?: "server_start_failed" | "connection_refused") => Array.from({ length: START_FAILED_MAX_ATTEMPTS - 1 }, (_, i) => backgroundDelay(reconnect, i + 1, reason)!);
    const cannotStart = waits("server_start_failed");
    expect(cannotStart.at(-1)).toBe(START_FAILED_MAX_DELAY_MS);
    for (let i = 1; i < cannotStart.length; i++) expect(cannotStart[i]).toBeGreaterThanOrEqual(cannotStart[i - 1]!);
    expect(Math.max(...waits("connection_refused"))).toBe(DEFAULT_RECONNECT.maxDelayMs);
    expect(backgroundDelay(reconnect, START_FAILED_MAX_ATTEMPTS, "server_start_failed")).toBeUndefined();
  });
});

describe("a stdio server that started before and now exits before it answers initialize", () => {
  it("is server_start_failed but transient (a crash loop, a dependency not ready): the same command ran before", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-restart-"));
    const marker = join(dir, "started");
    const wrapper = join(dir, "server.mjs");
    const fixture = join(import.meta.dirname, "../servers/stdio-server.ts");
    writeFileSync(wrapper, `import { existsSync, writeFileSync } from "node:fs";\nif (existsSync(${JSON.stringify(marker)})) { console.error("boot: upstream database not ready"); process.exit(3); }\nwriteFileSync(${JSON.stringify(marker)}, "1");\nawait import(${JSON.stringify(pathToFileURL(fixture).href)});\n`);
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "stdio", command: process.execPath, args: ["--import", "tsx", wrapper] } }, retry: { retries: 0 } }));
    expect((await toolkit.getTool("echo")!.invoke({ text: "up" })) as unknown).toBe("up");
    // The server process exits; the next call starts it again, and this time it dies at boot.
    await toolkit.getTool("crash")!.invoke({ code: 1 }).catch(() => undefined);
    const reply = (await toolkit.getTool("echo")!.invoke({ type: "tool_call", id: "c1", name: "echo", args: { text: "again" } })) as { artifact: unknown };
    expect(reply.artifact).toMatchObject({ reason: "server_start_failed", transient: true, outcome: "not_sent" });
    expect(String((reply.artifact as { message: string }).message)).toMatch(/exited with code 3 before it answered initialize: its last words on stderr: boot: upstream database not ready\. It started before/);
  });
});
