/**
 * Pinned resources in an agent's system prompt (`mcpPinnedResourcesMiddleware`), against real
 * servers of both SDK lines over HTTP: the v2 one speaks 2026-07-28 (one `subscriptions/listen`
 * stream), the v1 one the 2025 revisions (`resources/subscribe`, notifications on the session's
 * event stream). The model (a scripted one) reads the pinned text; a change on the server reaches
 * the next model call; a server restart cuts the stream, and the watch listens again and re-reads
 * what changed while it was down.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { createAgent, fakeModel } from "langchain";
import { describe, expect, it } from "vitest";
import { mcpPinnedResourcesMiddleware } from "../../src/agents.js";
import { McpToolkit, type McpEvent } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startFaultProxy } from "../servers/proxy/faultProxy.js";
import { stopwatch } from "../timing.js";
import { ALSO_URI, GUIDE_URI, NOTES_URI, startPinServer, type PinLine } from "./pinServers.js";
import { FILE_URI, pinStdioServer } from "./pinStdioServer.js";

const cleanups = closeAfterEach();

/** Generous: what is asserted is the content, and the 2 s target by the stopwatch. */
const WAIT_MS = 15_000;

async function until(what: string, check: () => boolean | Promise<boolean>, ms = WAIT_MS): Promise<void> {
  const end = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > end) throw new Error(`still waiting after ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function setUp(line: PinLine, resources = [{ server: "docs", uri: NOTES_URI }], maxTokens?: number) {
  const server = await startPinServer(line);
  cleanups.push(() => server.close());
  const events: McpEvent[] = [];
  const toolkit = await McpToolkit.connect({ servers: { docs: { transport: "http", url: server.url.href } }, onEvent: (e) => events.push(e), warnings: "silent" });
  cleanups.push(() => toolkit.close());
  const pinned = mcpPinnedResourcesMiddleware(toolkit, { resources, ...(maxTokens ? { maxTokens } : {}) });
  return { server, toolkit, pinned, events };
}

/** The system prompt of each model call, in order. */
function systemPrompts(model: { calls: { messages: BaseMessage[] }[] }): string[] {
  return model.calls.map((call) => call.messages.find((m) => m.type === "system")?.text ?? "");
}

const lostEvents = (events: McpEvent[]) => events.filter((e) => e.type === "error" && e.error.reason === "subscription_lost");

describe.each(["v2", "v1"] as const)("pinned resources against a %s server", (line) => {
  const era = line === "v2" ? "modern" : "legacy";

  it(`puts the pinned text into the system prompt, and the next model call sees it changed (${era} era)`, async () => {
    const { server, toolkit, pinned } = await setUp(line);
    const model = fakeModel().respond(new AIMessage("first")).respond(new AIMessage("second"));
    const agent = createAgent({ model, tools: [], systemPrompt: "You help with notes.", middleware: [pinned] });
    await agent.invoke({ messages: [{ role: "user", content: "what do the notes say?" }] });
    expect(toolkit.protocolEra("docs")).toBe(era);
    const [first] = systemPrompts(model);
    expect(first).toMatch(/^You help with notes\.\n\nResources pinned from MCP servers/);
    expect(first).toContain(`<mcp-resource server="docs" uri="${NOTES_URI}" mimeType="text/plain">\nnotes v1\n</mcp-resource>`);
    expect(pinned.pins.status()).toEqual([{ server: "docs", uri: NOTES_URI, state: "fresh", readAt: expect.any(Number), watch: "watching" }]);

    server.change(NOTES_URI, "notes v2: the meeting moved to Friday");
    await until("the change to be read", () => pinned.pins.text().includes("notes v2"));
    await agent.invoke({ messages: [{ role: "user", content: "and now?" }] });
    const [, second] = systemPrompts(model);
    expect(second).toContain("notes v2: the meeting moved to Friday");
    expect(second).not.toContain("notes v1");
  });

  it("listens again after a server restart cuts the stream, records subscription_lost meanwhile, and re-reads what changed within 2 s", async () => {
    const { server, pinned, events } = await setUp(line);
    await pinned.pins.start();
    expect(pinned.pins.status()[0]).toMatchObject({ state: "fresh", watch: "watching" });
    const subscribedBefore = server.subscribes;

    await server.down();
    await until("the lost stream to be noticed", () => lostEvents(events).length > 0);
    expect(pinned.pins.status()[0]).toMatchObject({ watch: "lost", watchError: { reason: "subscription_lost", transient: true, outcome: "not_sent", serverName: "docs" } });
    // A change no notification can carry: the server is down.
    server.change(NOTES_URI, "notes changed while the server was down", false);

    const clock = stopwatch();
    await server.up();
    await until("the re-read after the restart", () => pinned.pins.text().includes("notes changed while the server was down"));
    clock.within(2_000, "the pinned resource is refreshed after the server listens again");
    await until("the watch to stand again", () => pinned.pins.status()[0]!.watch === "watching");
    expect(server.subscribes).toBeGreaterThan(subscribedBefore);
    expect(pinned.pins.status()[0]).toMatchObject({ state: "fresh" });
    expect(pinned.pins.status()[0]!.watchError).toBeUndefined();

    // The new stream carries the next change.
    server.change(NOTES_URI, "notes after the restart");
    await until("the change after the restart", () => pinned.pins.text().includes("notes after the restart"));
  });

  it("reads everything pinned again when the server says its list changed, and shows a resource that is not there as unavailable", async () => {
    const { server, pinned } = await setUp(line, [
      { server: "docs", uri: NOTES_URI },
      { server: "docs", uri: ALSO_URI },
    ]);
    await pinned.pins.start();
    expect(pinned.pins.status().map((s) => [s.uri, s.state, s.error?.reason])).toEqual([
      [NOTES_URI, "fresh", undefined],
      [ALSO_URI, "missing", "resource_not_found"],
    ]);
    expect(pinned.pins.text()).toContain(`<mcp-resource server="docs" uri="${ALSO_URI}">\n[not available (resource_not_found): `);
    server.add(ALSO_URI, "a resource added later");
    await until("the list change to be read", () => pinned.pins.text().includes("a resource added later"));
    expect(pinned.pins.status()[1]).toMatchObject({ state: "fresh" });
    expect(pinned.pins.status()[1]!.error).toBeUndefined();
  });
});

describe("pinned resources of a 2025-era session whose event stream is given up", () => {
  it("opens a new session when the SDK stops reopening the GET stream, though the old session lives: the next change is heard", async () => {
    const server = await startPinServer("v1");
    cleanups.push(() => server.close());
    const proxy = await startFaultProxy(server.url);
    cleanups.push(() => proxy.close());
    // The session's GET stream is cut at its first event, and both of the SDK's reopens fail.
    proxy.plan({ kind: "reset_mid_body" }, { rpc: "GET" });
    proxy.plan({ kind: "status", when: "before", status: 502 }, { rpc: "GET", count: 2 });
    const events: McpEvent[] = [];
    const toolkit = await McpToolkit.connect({ servers: { docs: { transport: "http", url: proxy.url.href } }, onEvent: (e) => events.push(e), warnings: "silent" });
    cleanups.push(() => toolkit.close());
    const pinned = mcpPinnedResourcesMiddleware(toolkit, { resources: [{ server: "docs", uri: NOTES_URI }] });
    await pinned.pins.start();
    expect(pinned.pins.status()[0]).toMatchObject({ state: "fresh", watch: "watching" });

    // Its notification is lost with the stream; the re-read after the loss reads the change.
    server.change(NOTES_URI, "notes v2");
    await until("the re-read after the cut", () => pinned.pins.text().includes("notes v2"));
    await until("a new session", () => events.some((e) => e.type === "reconnect"));
    await until("the watch to stand again", () => pinned.pins.status()[0]!.watch === "watching");

    server.change(NOTES_URI, "notes v3, heard on the new session's stream");
    await until("the next change", () => pinned.pins.text().includes("notes v3"));
    expect(proxy.seen.filter((r) => r.method === "GET").map((r) => r.fault ?? "ok")).toEqual(["reset_mid_body", "status", "status", "ok"]);
  });
});

describe.each(["v2", "v1"] as const)("pinned resources of a %s server over stdio", (line) => {
  it("start the server again after its process is killed, subscribe again and re-read the resource", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pins-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, "pinned.txt");
    const pidFile = join(dir, "pid");
    await writeFile(file, "file v1");
    const events: McpEvent[] = [];
    const toolkit = await McpToolkit.connect({ servers: { local: { ...pinStdioServer(line, file, pidFile), era: line === "v2" ? "modern" : "legacy" } }, onEvent: (e) => events.push(e), warnings: "silent" });
    cleanups.push(() => toolkit.close());
    expect(toolkit.protocolEra("local")).toBe(line === "v2" ? "modern" : "legacy");
    const pinned = mcpPinnedResourcesMiddleware(toolkit, { resources: [{ server: "local", uri: FILE_URI }] });
    await pinned.pins.start();
    expect(pinned.pins.status()[0]).toMatchObject({ state: "fresh", watch: "watching" });
    expect(pinned.pins.text()).toContain("\nfile v1\n");

    const pid = Number(await readFile(pidFile, "utf8"));
    await writeFile(file, "file changed while the process was gone");
    process.kill(pid, "SIGKILL");
    await until("a new process", async () => Number(await readFile(pidFile, "utf8")) !== pid);
    await until("the re-read after the restart", () => pinned.pins.text().includes("file changed while the process was gone"));
    await until("the watch to stand again", () => pinned.pins.status()[0]!.watch === "watching");
    expect(lostEvents(events).length).toBeGreaterThan(0);
  });
});

describe("pinned resources, whatever the server", () => {
  it("keep to the token budget: a resource that does not fit is cut with a note, and the others counted", async () => {
    const { server, pinned } = await setUp(
      "v2",
      [
        { server: "docs", uri: NOTES_URI },
        { server: "docs", uri: GUIDE_URI },
      ],
      300,
    );
    server.change(NOTES_URI, "n".repeat(2_000), false);
    await pinned.pins.start();
    const text = pinned.pins.text();
    expect(Math.ceil(text.length / 4)).toBeLessThanOrEqual(300);
    expect(text).toMatch(/\[cut to fit the pinned resources' budget of 300 tokens: the first \d+ of 2000 characters\]\n<\/mcp-resource>/);
    expect(text).toMatch(/\[1 more pinned resource not shown: the pinned resources' budget of 300 tokens is spent\]$/);
  });

  it("stops with the toolkit: no watch is left running", async () => {
    const { toolkit, pinned } = await setUp("v2");
    await pinned.pins.start();
    await toolkit.close();
    expect(pinned.pins.status()[0]!.watch).toBe("stopped");
  });
});
