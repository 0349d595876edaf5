/**
 * A call's progress ends at n of n. The SDK clients dispatch a notification a microtask after
 * they read it but a response at once, so a last progress notification read together with the
 * result (over stdio, most of the time) found its handler gone and was dropped. Our client's own
 * record hears progress in the order it arrived. Real v1 SDK server over stdio.
 */
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater } from "../servers/replies.js";
import { stdioFixtureCommand } from "../servers/stdio.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

describe("progress over stdio", () => {
  it("delivers the last notification (n of n) before the call settles, in at least 19 of 20 calls", async () => {
    const events: McpEvent[] = [];
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "stdio", ...stdioFixtureCommand() } }, onEvent: (e) => events.push(e) }));
    const tool = toolkit.getTool("slow")!;
    let ended = 0;
    for (let i = 0; i < 20; i++) {
      events.length = 0;
      // Three notifications, the last sent right before the result.
      await tool.invoke({ ms: 30, progressEveryMs: 10 });
      const seen = events.filter((e) => e.type === "progress").map((e) => (e as { progress: number }).progress);
      if (seen.at(-1) === 30) ended++;
      // Never out of order, never twice.
      expect(seen).toEqual([10, 20, 30].slice(0, seen.length));
    }
    expect(ended).toBeGreaterThanOrEqual(19);
  });
});
