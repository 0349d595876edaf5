/**
 * A stdio server that dies while another process still holds its stdout (a wrapper's child, a
 * forked worker): the pipe to the client stays open, and the SDK reports a transport's end only
 * when its pipes close. The calls in flight must not wait for the other process to let go.
 */
import { describe, expect, it } from "vitest";
import { McpToolkit } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater, replyOf } from "../servers/replies.js";
import { stdioFixtureCommand } from "../servers/stdio.js";
import { stopwatch } from "../timing.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);
/** How long the other process holds the dead server's stdout. */
const HELD_MS = 6000;

describe("a stdio server that died while its stdout stays open", () => {
  it("ends the call in flight soon after the exit, naming the exit code, not when the pipe closes; the next call runs on a new process", async () => {
    const toolkit = later(
      await McpToolkit.connect({ servers: { s: { transport: "stdio", ...stdioFixtureCommand(), env: { FIXTURE_HOLD_STDOUT: String(HELD_MS) } } }, timeoutMs: 30_000 }),
    );
    const clock = stopwatch();
    const crash = await replyOf(toolkit.getTool("crash"), { code: 3 });
    const elapsed = clock.elapsed();
    expect(crash.error).toMatchObject({ reason: "connection_closed", outcome: "unknown" });
    expect(crash.error!.message).toContain("exited with code 3");
    // Half a second after the exit on a quiet machine; the pipe stays open for 6 s.
    clock.within(HELD_MS / 2, "the call in flight when its server exited", elapsed, HELD_MS / 2 - 500);
    expect((await replyOf(toolkit.getTool("echo"), { text: "after" })).content).toBe("after");
  });
});
