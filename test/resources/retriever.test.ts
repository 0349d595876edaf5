/**
 * `McpResourceRetriever` against real servers on both SDK lines (the resource servers of
 * ./servers.ts over streamable HTTP): a query selects resources by URI, by template or by name,
 * each is read through the toolkit's pipeline (redaction included) and comes back as Documents.
 * Failures: a URI that names nothing is no Document (or thrown, when asked); anything else is
 * thrown as the classified, redacted McpToolError, never a shorter list.
 */
import { Document } from "@langchain/core/documents";
import { describe, expect, it } from "vitest";
import { McpConfigError, McpResourceRetriever, isMcpToolError } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { HttpFixture } from "../servers/http.js";
import { buildV1Failing, SECRET, resourceHarness, serve } from "./servers.js";

const cleanups = closeAfterEach();

const { connect, started } = resourceHarness(cleanups);

describe.each(["v1", "v2"] as const)("McpResourceRetriever against a %s server", (line) => {
  it("by URI: the query is the resource's URI; its Documents carry the server and the URI", async () => {
    const toolkit = await connect({ docs: await started(line, "resources") });
    const retriever = new McpResourceRetriever({ toolkit, select: { by: "uri" } });
    const docs = await retriever.invoke("test://static/hello");
    expect(docs).toHaveLength(1);
    expect(docs[0]).toBeInstanceOf(Document);
    expect(docs[0]!.pageContent).toBe("Hello, resources.");
    expect(docs[0]!.metadata).toEqual({ server: "docs", uri: "test://static/hello", mimeType: "text/plain" });
  });

  it("by URI among several servers: the server that lists the URI, or has a template it fits, is found by listing", async () => {
    const toolkit = await connect({ docs: await started(line, "resources"), paged: await started(line, "paged") });
    const retriever = new McpResourceRetriever({ toolkit, select: { by: "uri" } });
    expect((await retriever.invoke("test://many/7")).map((d) => [d.metadata.server, d.pageContent])).toEqual([["paged", "read test://many/7"]]);
    expect((await retriever.invoke("test://items/9")).map((d) => [d.metadata.server, d.pageContent])).toEqual([["docs", "item 9"]]);
  });

  it("a URI that names nothing is no Document; with missing: 'throw' it is the resource_not_found error", async () => {
    const toolkit = await connect({ docs: await started(line, "resources"), paged: await started(line, "paged") });
    expect(await new McpResourceRetriever({ toolkit, select: { by: "uri", server: "docs" } }).invoke("test://static/nowhere")).toEqual([]);
    // Among several servers, no server lists it.
    expect(await new McpResourceRetriever({ toolkit, select: { by: "uri" } }).invoke("test://elsewhere/1")).toEqual([]);
    const strict = new McpResourceRetriever({ toolkit, select: { by: "uri", server: "docs" }, missing: "throw" });
    await expect(strict.invoke("test://new/3")).rejects.toMatchObject({ name: "McpToolError", reason: "resource_not_found", outcome: "not_sent", serverName: "docs" });
  });

  it("by template: the query fills the template's variable (RFC 6570); a function may give every variable", async () => {
    const toolkit = await connect({ docs: await started(line, "resources") });
    const items = new McpResourceRetriever({ toolkit, select: { by: "template", uriTemplate: "test://items/{id}" } });
    expect((await items.invoke("42")).map((d) => [d.metadata.uri, d.pageContent])).toEqual([["test://items/42", "item 42"]]);
    // Expansion escapes what a URI cannot hold: the query is a value, never a path.
    expect((await items.invoke("a b/c")).map((d) => d.metadata.uri)).toEqual(["test://items/a%20b%2Fc"]);
    const mapped = new McpResourceRetriever({ toolkit, select: { by: "template", uriTemplate: "test://items/{id}", variables: (query) => ({ id: query.toUpperCase() }) } });
    expect((await mapped.invoke("x7")).map((d) => d.pageContent)).toEqual(["item X7"]);
  });

  it("by name: the query's words against each resource's name, title and description; the best k are read, in order", async () => {
    const toolkit = await connect({ docs: await started(line, "resources") });
    const retriever = new McpResourceRetriever({ toolkit, select: { by: "name", k: 2 } });
    expect((await retriever.invoke("a greeting")).map((d) => d.metadata.uri)).toEqual(["test://static/hello"]);
    expect((await retriever.invoke("hello")).map((d) => d.pageContent)).toEqual(["Hello, resources."]);
    // "text" is in two descriptions: both, and no more than k.
    expect((await retriever.invoke("text")).map((d) => d.metadata.uri)).toEqual(["test://static/secret", "test://static/big"]);
    expect(await retriever.invoke("nothing matches this")).toEqual([]);
  });

  it("redacts a configured secret in the text, and in a thrown error's message", async () => {
    const toolkit = await connect({ docs: await started(line, "resources") });
    const [doc] = await new McpResourceRetriever({ toolkit, select: { by: "uri" } }).invoke("test://static/secret");
    expect(doc!.pageContent).not.toContain(SECRET);
    const strict = new McpResourceRetriever({ toolkit, select: { by: "template", uriTemplate: "test://old/{id}" }, missing: "throw" });
    const error = await strict.invoke(SECRET).catch((e: unknown) => e);
    expect(isMcpToolError(error) && error.reason).toBe("resource_not_found");
    expect(String((error as Error).message)).not.toContain(SECRET);
  });

  it("throws a read's failure rather than return fewer Documents: an empty answer is invalid_result", async () => {
    const toolkit = await connect({ docs: await started(line, "resources") });
    const retriever = new McpResourceRetriever({ toolkit, select: { by: "uri" } });
    await expect(retriever.invoke("test://static/empty")).rejects.toMatchObject({ reason: "invalid_result", serverName: "docs" });
  });
});

describe("McpResourceRetriever's failures", () => {
  it("a server whose list fails is thrown by a name match, not taken for a server with no match", async () => {
    const failing = await new HttpFixture({ build: () => buildV1Failing() }).start();
    cleanups.push(() => failing.close());
    const toolkit = await connect({ docs: await started("v2", "resources"), broken: failing.url }, { retry: { retries: 1, minTimeout: 10, maxTimeout: 20 } });
    const retriever = new McpResourceRetriever({ toolkit, select: { by: "name" } });
    await expect(retriever.invoke("hello")).rejects.toMatchObject({ reason: "internal_error", serverName: "broken", attempts: 2 });
    // Only the working server named: its matches.
    const docsOnly = new McpResourceRetriever({ toolkit, select: { by: "name", servers: ["docs"] } });
    expect((await docsOnly.invoke("hello")).map((d) => d.pageContent)).toEqual(["Hello, resources."]);
  });

  it("a server that is down is its connection's failure, after the pipeline's retries", async () => {
    const server = await serve("v2", "resources");
    const toolkit = await connect({ docs: server.url }, { retry: { retries: 1, minTimeout: 10, maxTimeout: 20 } });
    await server.close();
    const retriever = new McpResourceRetriever({ toolkit, select: { by: "uri" } });
    const error = await retriever.invoke("test://static/hello").catch((e: unknown) => e);
    expect(isMcpToolError(error) && error.transient).toBe(true);
    expect(error).toMatchObject({ serverName: "docs", outcome: "not_sent" });
  });

  it("refuses at construction a server it does not have, and a template whose query variable cannot be told", async () => {
    const toolkit = await connect({ docs: await started("v2", "resources") });
    expect(() => new McpResourceRetriever({ toolkit, select: { by: "uri", server: "nope" } })).toThrow(McpConfigError);
    expect(() => new McpResourceRetriever({ toolkit, select: { by: "template", uriTemplate: "test://{a}/{b}" } })).toThrow(/name the variable the query fills: the template 'test:\/\/\{a\}\/\{b\}' leaves a, b open/);
    expect(() => new McpResourceRetriever({ toolkit, select: { by: "template", uriTemplate: "test://{a}", variable: "z" } })).toThrow(/has no variable 'z'/);
    expect(new McpResourceRetriever({ toolkit, select: { by: "template", uriTemplate: "test://{a}/{b}", variables: { a: "x" } } })).toBeInstanceOf(McpResourceRetriever);
  });
});
