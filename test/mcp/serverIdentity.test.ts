/**
 * A server's identity (the exported catalog's `identity`, part of every Redis key name) must not
 * let a dictionary recover a secret: it is no fast hash of the headers and env. It still tells
 * two tenants apart, and stays the same across processes, as a catalog and a fleet need.
 */
import { createHash } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import type { HttpServerConfig } from "../../src/config/index.js";
import { catalogKey, serverKeys } from "../../src/fleet/keys.js";
import { McpToolkit } from "../../src/index.js";
import { credentialHash, identitiesReady } from "../../src/mcp/session/serverIdentity.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { closesLater } from "../servers/replies.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

const PASSWORD = "sunflower";
const DICTIONARY = ["password", "letmein", "dragon", PASSWORD, "monkey", "hunter2"];

function pinging() {
  const server = new McpServer({ name: "ping", version: "1.0.0" });
  server.registerTool("ping", { description: "Answers pong." }, () => ({ content: [{ type: "text", text: "pong" }] }));
  return server;
}

/** What an attacker holding the catalog computes per guess: every fast hash of the config the identity could be. */
function fastGuesses(server: HttpServerConfig, guess: string): string[] {
  const headers = Object.entries({ ...server.headers, Authorization: `Basic ${guess}` })
    .map(([k, v]) => [k.toLowerCase(), v])
    .sort(([a], [b]) => (a! < b! ? -1 : 1));
  const json = JSON.stringify({ transport: server.transport, url: server.url, headers });
  return ["sha256", "sha1", "md5", "sha512"].map((algorithm) => createHash(algorithm).update(json).digest("hex"));
}

describe("a server's identity", () => {
  it("in an exported catalog and in Redis key names, is no fast hash a dictionary reverses", async () => {
    const http = later(await startHttpFixture({ build: () => pinging() }));
    const server: HttpServerConfig = { transport: "http", url: http.url.href, headers: { Authorization: `Basic ${PASSWORD}` }, catalogTtlMs: 60_000 };
    const toolkit = later(await McpToolkit.connect({ servers: { s: server } }));
    const identity = toolkit.catalog().servers.s!.identity;
    expect(identity).toMatch(/^[0-9a-f]{16}$/);
    const keys = [...serverKeys("p", "s", server), catalogKey("p", "s", server)].join(" ");
    expect(keys).toContain(identity);
    for (const guess of DICTIONARY) {
      for (const digest of fastGuesses(server, guess)) {
        expect(identity, `the guess "${guess}" gives the identity`).not.toBe(digest.slice(0, 16));
        expect(keys.includes(digest.slice(0, 16)), `the guess "${guess}" gives a key name`).toBe(false);
      }
    }
  });

  it("is the same for the same configuration in another process, and differs by credentials", async () => {
    const base = { transport: "http" as const, url: "https://mcp.example.com/mcp" };
    const a = { ...base, headers: { Authorization: "Bearer tenant-a-token" } };
    // A copy, as another process reads the same file: nothing of the object's identity counts.
    const aAgain = structuredClone(a);
    const b = { ...base, headers: { authorization: "Bearer tenant-b-token" } };
    await identitiesReady([a, b]);
    expect(credentialHash(aAgain)).toBe(credentialHash(a));
    expect(credentialHash(b)).not.toBe(credentialHash(a));
    // Header names differ in case only.
    expect(credentialHash({ ...base, headers: { AUTHORIZATION: "Bearer tenant-b-token" } })).toBe(credentialHash(b));
    // A configuration changed in place is worked out again, not answered from what it was.
    const changing = structuredClone(a);
    const before = credentialHash(changing);
    changing.headers.Authorization = "Bearer tenant-c-token";
    expect(credentialHash(changing)).not.toBe(before);
  });
});
