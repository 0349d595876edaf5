/**
 * `toolkit.resources` for application code, against real servers on both SDK lines: every page of
 * every list, a failing server named while the others are listed, reads as LangChain Documents,
 * a configured secret redacted, and a read retried after a reset mid-answer without any
 * annotation (a read is read-only by protocol).
 */
import { Document } from "@langchain/core/documents";
import { describe, expect, it } from "vitest";
import type { McpEvent } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { HttpFixture } from "../servers/http.js";
import { startFaultProxy } from "../servers/proxy/faultProxy.js";
import { BIG_LENGTH, buildV1Failing, SECRET, resourceHarness } from "./servers.js";

const cleanups = closeAfterEach();

const { connect, started } = resourceHarness(cleanups);

describe.each(["v1", "v2"] as const)("toolkit.resources against a %s server", (line) => {
  it("lists every resource and template with its metadata", async () => {
    const toolkit = await connect({ docs: await started(line, "resources") });
    const { resources, templates, failures } = await toolkit.resources.list();
    expect(failures).toEqual([]);
    expect(resources.map((r) => r.uri)).toEqual(["test://static/hello", "test://static/secret", "test://static/big", "test://static/image", "test://static/pdf", "test://static/empty"]);
    expect(resources[0]).toEqual({ server: "docs", uri: "test://static/hello", name: "hello", title: "Hello", description: "A greeting.", mimeType: "text/plain" });
    expect(resources.find((r) => r.name === "big")).toMatchObject({ size: BIG_LENGTH });
    expect(templates.map((t) => [t.server, t.uriTemplate])).toEqual([
      ["docs", "test://items/{id}"],
      ["docs", "test://old/{id}"],
      ["docs", "test://new/{id}"],
    ]);
  });

  it("reads every page of a paginated list: 1,000 resources over 10 pages, each page one call; no templates method is no failure", async () => {
    const events: McpEvent[] = [];
    const toolkit = await connect({ paged: await started(line, "paged") }, {}, events);
    const { resources, templates, failures } = await toolkit.resources.list("paged");
    expect(resources).toHaveLength(1000);
    expect(new Set(resources.map((r) => r.uri)).size).toBe(1000);
    expect(resources.at(-1)).toEqual({ server: "paged", uri: "test://many/999", name: "many 999" });
    expect(templates).toEqual([]);
    expect(failures).toEqual([]);
    expect(events.filter((e) => e.type === "success" && e.toolName === "resources/list")).toHaveLength(10);
  });

  it("names a server whose list fails, and still lists the others", async () => {
    const failing = await new HttpFixture({ build: () => buildV1Failing() }).start();
    cleanups.push(() => failing.close());
    const toolkit = await connect({ docs: await started(line, "resources"), broken: failing.url, tools: await started(line, "none") }, { retry: { retries: 1, minTimeout: 10, maxTimeout: 20 } });
    const { resources, failures } = await toolkit.resources.list();
    expect(resources.length).toBe(6);
    expect(failures.map((f) => [f.server, f.error.reason, f.error.serverName])).toEqual([["broken", "internal_error", "broken"]]);
    expect(failures[0]!.error.message).toContain("the index is rebuilding");
    // Retried as a transient failure of a read-only request: two attempts.
    expect(failures[0]!.error.attempts).toBe(2);
  });

  it("reads a resource as Documents: text with its metadata, a blob described with its base64 kept, a template's URI", async () => {
    const toolkit = await connect({ docs: await started(line, "resources") });
    const [hello] = await toolkit.resources.read("docs", "test://static/hello");
    expect(hello).toBeInstanceOf(Document);
    expect(hello!.pageContent).toBe("Hello, resources.");
    expect(hello!.metadata).toEqual({ server: "docs", uri: "test://static/hello", mimeType: "text/plain" });
    const [pdf] = await toolkit.resources.read("docs", "test://static/pdf");
    expect(pdf!.pageContent).toBe("[binary application/pdf, 40 bytes: test://static/pdf]");
    expect(Buffer.from(String(pdf!.metadata.blob), "base64").toString()).toMatch(/^%PDF-1.4/);
    const [item] = await toolkit.resources.read("docs", "test://items/42");
    expect(item!.pageContent).toBe("item 42");
    const [big] = await toolkit.resources.read("docs", "test://static/big");
    expect(big!.pageContent).toHaveLength(BIG_LENGTH);
  });

  it("redacts a configured secret in a resource's text, as in a tool's result", async () => {
    const toolkit = await connect({ docs: await started(line, "resources") });
    const [doc] = await toolkit.resources.read("docs", "test://static/secret");
    expect(doc!.pageContent).not.toContain(SECRET);
    expect(doc!.pageContent).toMatch(/^token=\[REDACTED[^\]]*\] and more$/);
  });

  it("retries a read after a reset mid-answer, without any annotation: a read only reads", async () => {
    const upstream = await started(line, "resources");
    const proxy = await startFaultProxy(upstream);
    cleanups.push(() => proxy.close());
    const events: McpEvent[] = [];
    const toolkit = await connect({ docs: proxy.url }, { retry: { retries: 2, minTimeout: 10, maxTimeout: 20 } }, events);
    proxy.plan({ kind: "reset_mid_body" }, { rpc: "resources/read" });
    const [doc] = await toolkit.resources.read("docs", "test://static/hello");
    expect(doc!.pageContent).toBe("Hello, resources.");
    expect(proxy.seen.filter((r) => r.rpc === "resources/read").map((r) => r.fault ?? "ok")).toEqual(["reset_mid_body", "ok"]);
    const retry = events.find((e) => e.type === "retry");
    expect(retry).toMatchObject({ toolName: "resources/read", serverName: "docs", attempt: 1 });
    expect(retry && "error" in retry ? retry.error.outcome : undefined).toBe("unknown");
  });

  it("throws invalid_arguments for a server that is not configured, naming the ones there are", async () => {
    const toolkit = await connect({ docs: await started(line, "resources") });
    await expect(toolkit.resources.read("nope", "test://static/hello")).rejects.toMatchObject({ reason: "invalid_arguments", message: "No server is named 'nope' (servers: docs)." });
    await expect(toolkit.resources.list("nope")).rejects.toMatchObject({ reason: "invalid_arguments" });
  });
});
