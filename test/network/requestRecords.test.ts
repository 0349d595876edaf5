/**
 * One request, one record: what a call set for its request (its headers) and what ends it (its
 * answer stream, its clean-up) belong to the client that wrote it. JSON-RPC ids start again at 0
 * on every new client, so an old session's request still waiting for its 404 shares its id with
 * a request of the new session: nothing of the one may reach the other. Real v1 SDK server over
 * streamable HTTP on 127.0.0.1, whose answers to the old session's requests come back late.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { McpToolkit } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { closesLater } from "../servers/replies.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

/** A v1 server whose `whoami` (a write: not idempotent) answers with the x-user header it got, after `ms`. */
function whoamiServer(runs: string[]) {
  const server = new McpServer({ name: "whoami", version: "1.0.0" });
  server.registerTool("whoami", { description: "Says who asked.", inputSchema: { caller: z.string(), ms: z.number() } }, async ({ caller, ms }, extra) => {
    const user = String(extra.requestInfo?.headers["x-user"]);
    runs.push(`${caller} as ${user}`);
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { content: [{ type: "text", text: `caller=${caller} user=${user}` }] };
  });
  return server;
}

describe("a restart with parallel callers, some with per-user tokens", () => {
  it("sends every request with its own caller's token or none, and every call succeeds, while the old session's 404s come back late", async () => {
    const runs: string[] = [];
    // The first old-session request is answered 404 at once, the others late: the new session
    // (its ids from 0 again) is up and busy while they still wait under the same ids.
    const http = later(await startHttpFixture({ build: () => whoamiServer(runs), unknownSessionDelayMs: (n) => (n === 0 ? 20 : 600 + 100 * n) }));
    const toolkit = later(
      await McpToolkit.connect({
        servers: { s: { transport: "http", url: http.url.href, era: "legacy" } },
        timeoutMs: 10_000,
        beforeToolCall: ({ config }) => {
          const user = (config?.configurable as { user?: string } | undefined)?.user;
          return user ? { headers: { "x-user": user } } : undefined;
        },
      }),
    );
    const tool = toolkit.getTool("whoami")!;
    const ask = async (caller: string, user: string | undefined, ms: number) => {
      const reply = (await tool.invoke({ type: "tool_call", id: caller, name: "whoami", args: { caller, ms } }, user ? { configurable: { user } } : {})) as ToolMessage;
      return `${caller}: ${reply.status}: ${String(reply.content)}`;
    };
    expect(await ask("warm", undefined, 0)).toBe("warm: success: caller=warm user=undefined");
    await http.forgetSessions();
    runs.length = 0;
    const withTokens = [
      { caller: "a", user: "alice" },
      { caller: "c", user: "carol" },
      { caller: "e", user: "erin" },
    ];
    const first = withTokens.map(({ caller, user }) => ask(caller, user, 800));
    // The first 404 came back and its call was re-sent on the new session: the others still wait for theirs.
    while (runs.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const withoutTokens = ["b", "d", "f", "g", "h"].map((caller) => ({ caller, user: undefined }));
    const second = withoutTokens.map(({ caller }) => ask(caller, undefined, 800));
    const replies = await Promise.all([...first, ...second]);
    // Each call ran once, on the new session (an old session's 404 proves nothing ran), as its own caller.
    expect(runs.sort()).toEqual([...withTokens, ...withoutTokens].map(({ caller, user }) => `${caller} as ${String(user)}`).sort());
    expect(replies).toEqual([...withTokens, ...withoutTokens].map(({ caller, user }) => `${caller}: success: caller=${caller} user=${String(user)}`));
  });
});
