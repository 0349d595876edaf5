/**
 * Pinned resources against the reference server from npm, server-everything (2026.8.31, over
 * stdio, the 2025 revision): the pin subscribes (`resources/subscribe`, which the server
 * declares), and once the server's simulated updates are switched on (its own tool,
 * `toggle-subscriber-updates`: a `notifications/resources/updated` at once, then every 5 s, for
 * each URI this session subscribed to), each one is heard and the resource read again.
 */
import { afterAll, describe, expect, it } from "vitest";
import { McpToolkit, ResourcePins } from "../../src/index.js";
import { everythingStdioCommand } from "../servers/tasks/everything.js";

const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

async function until(what: string, check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("server-everything's subscriptions (stdio)", () => {
  it("subscribes to a pinned resource, hears the server's updates, and reads it again on each", async () => {
    const toolkit = await McpToolkit.connect({ servers: { everything: { transport: "stdio", ...everythingStdioCommand() } }, warnings: "silent" });
    closers.push(() => toolkit.close());
    const { resources } = await toolkit.resources.list("everything");
    const uri = resources.find((r) => r.uri.startsWith("demo://resource/static/document/"))!.uri;
    const pins = new ResourcePins(toolkit, { resources: [{ server: "everything", uri }] });
    closers.push(() => pins.close());
    await pins.start();
    expect(pins.status()[0]).toMatchObject({ state: "fresh", watch: "watching" });
    expect(pins.text()).toContain(`uri="${uri}"`);
    const firstRead = pins.status()[0]!.readAt!;

    const toggled = await toolkit.getTool("toggle-subscriber-updates")!.invoke({ type: "tool_call", id: "t", name: "toggle-subscriber-updates", args: {} });
    expect(String(toggled.content)).not.toMatch(/^Error/);
    // The server sends an update at once, then every 5 s: the second read comes with the first.
    await until("a re-read after the server's update", () => (pins.status()[0]!.readAt ?? 0) > firstRead, 20_000);
    expect(pins.status()[0]).toMatchObject({ state: "fresh", watch: "watching" });
    // And again with the next, 5 s later.
    const secondRead = pins.status()[0]!.readAt!;
    await until("a re-read after the next update", () => (pins.status()[0]!.readAt ?? 0) > secondRead, 20_000);
  }, 60_000);
});
