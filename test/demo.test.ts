/**
 * `npm run demo` is the first thing a newcomer runs: it must tell the whole story, end with
 * the summary and exit 0 by itself, with no API key.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

function demo(args: string[] = []): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, NO_COLOR: "1", OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" };
    execFile(process.execPath, ["--import", "tsx", "demo/run.ts", ...args], { cwd: root, timeout: 60_000, env }, (error, stdout) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout });
    });
  });
}

// The two runs are processes that mostly wait on their servers: side by side, not one after the other.
describe.concurrent("npm run demo", () => {
  it("tells each call's story, ends with the summary and exits 0", async () => {
    const { code, stdout } = await demo();
    expect(code).toBe(0);
    expect(stdout).toContain("attempt 1 failed: service_unavailable (HTTP 503)");
    expect(stdout).toContain("failed (request_timeout)");
    // The transfer ran, its reply was lost (the server cut the connection); it carries an
    // idempotency key, so it was repeated under that key and the server answered the first result.
    expect(stdout).toMatch(/attempt 1 failed: (connection_reset|stream_error) \(outcome unknown\), repeated under its idempotency key [0-9a-f]{8}…/);
    expect(stdout).not.toMatch(/Tool 'transfer' failed/);
    expect(stdout).toMatch(/The model calls transfer[^\n]*\n[^\n]*\n  ✓ the model read:\n    │ transferred\n/);
    expect(stdout).toMatch(/transfer sends under its one idempotency key\s+2\n/);
    expect(stdout).toMatch(/retried under its key [0-9a-f-]{36}, and the server answered the first result: it ran once/);
    expect(stdout).toContain("failed (tool_error): quota exceeded");
    expect(stdout).toContain("failed (invalid_arguments)");
    expect(stdout).toContain("ticket #1042");
    expect(stdout).toContain("circuit OPEN for server 'warehouse'");
    expect(stdout).toContain("this answer came from the fallback server 'mirror'");
    expect(stdout).toMatch(/executions of the non-idempotent transfer\s+1\n/);
    // Plain text when stdout is not a terminal.
    expect(stdout).not.toContain("\u001b[");
  }, 70_000);

  it("prints the events as JSON lines with --json", async () => {
    const { code, stdout } = await demo(["--json"]);
    expect(code).toBe(0);
    const events = stdout.trim().split("\n").map((line) => JSON.parse(line) as { type: string; error?: { reason: string } });
    // Eight tool calls; the one with invalid arguments is refused before the pipeline, and a
    // fallback's inner call is part of the call it answers, not a call of its own.
    expect(events.filter((e) => e.type === "call")).toHaveLength(7);
    expect(events.filter((e) => e.type === "success").length + events.filter((e) => e.type === "error").length).toBe(7);
    expect(events.some((e) => e.type === "retry" && e.error?.reason === "service_unavailable")).toBe(true);
    expect(events.some((e) => e.type === "fallback")).toBe(true);
    const transferRetry = events.find((e) => e.type === "retry" && (e as { toolName?: string }).toolName === "transfer") as { error?: { outcome: string; data?: { idempotencyKey?: string } } } | undefined;
    expect(transferRetry?.error).toMatchObject({ outcome: "unknown", data: { idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    expect(events.filter((e) => e.type === "success" && (e as { toolName?: string }).toolName === "transfer")).toHaveLength(1);
  }, 70_000);
});
