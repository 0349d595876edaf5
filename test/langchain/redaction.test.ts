/**
 * What the configuration sends is redacted by what names it or what it looks like, on every
 * path an error takes out of the toolkit; ordinary values stay readable. And a successful
 * result is bounded for the model too.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { toModelReply } from "../../src/errors/text.js";
import { McpToolkit, type McpEvent, type McpToolError, type McpToolErrorJSON } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { buildFixtureServer, newState } from "../servers/fixture.js";
import { startHttpFixture } from "../servers/http.js";
import { connectInMemory } from "../servers/memory.js";
import { stdioFixtureCommand } from "../servers/stdio.js";

const cleanups = closeAfterEach();
const call = (name: string, args: Record<string, unknown>, id = "call-1") => ({ type: "tool_call" as const, id, name, args });

describe("redaction of what the configuration sends", () => {
  it("keeps ordinary env values readable and redacts the secret-named ones and flag values", async () => {
    const { command, args } = stdioFixtureCommand();
    const toolkit = await McpToolkit.connect({
      servers: {
        local: {
          transport: "stdio",
          command,
          args: [...args, "--password", "hunter22", "--api-key=k3y-v4lue-0123456789"],
          env: { DISABLE_THOUGHT_LOGGING: "true", NODE_ENV: "production", DB_PASSWORD: "s3cr3t-db-pw" },
        },
      },
    });
    cleanups.push(() => toolkit.close());
    const fail = toolkit.getTool("fail")!;

    const text = String(await fail.invoke({ message: 'DISABLE_THOUGHT_LOGGING: Expected boolean or "true"/"false" string in production' }));
    expect(text).toContain('Expected boolean or "true"/"false" string in production');

    const leaky = String(await fail.invoke({ message: "login hunter22 failed with key k3y-v4lue-0123456789 and db s3cr3t-db-pw (hunter22x is another word)" }));
    expect(leaky).not.toContain("k3y-v4lue-0123456789");
    expect(leaky).not.toContain("s3cr3t-db-pw");
    expect(leaky).toContain("login [REDACTED] failed");
    // A word-like secret goes only where it stands as a whole token.
    expect(leaky).toContain("hunter22x is another word");
  });

  it("keeps an ordinary header value readable and redacts secret-named headers and URL keys", async () => {
    const http = await startHttpFixture();
    const url = new URL(http.url);
    url.searchParams.set("key", "u7l-k3y-abcdef123456");
    const toolkit = await McpToolkit.connect({
      servers: { remote: { transport: "http", url: url.href, headers: { "X-Format": "application/json", "X-Api-Key": "hdr-4p1-k3y-987654" } } },
    });
    cleanups.push(() => http.close(), () => toolkit.close());
    const text = String(
      await toolkit.getTool("fail")!.invoke({
        message: "more information: expected application/json; sent hdr-4p1-k3y-987654 to https://api.example.com/v1?key=u7l-k3y-abcdef123456&page=2",
      }),
    );
    expect(text).toContain("more information: expected application/json");
    expect(text).not.toContain("hdr-4p1-k3y-987654");
    expect(text).not.toContain("u7l-k3y-abcdef123456");
    expect(text).toContain("&page=2");
  });

  it('redacts the error thrown in errors.mode "throw", so a middleware that formats it leaks nothing', async () => {
    const state = newState();
    const { client, close } = await connectInMemory(buildFixtureServer(state));
    const secret = "tok-5ecret-0987654321";
    const toolkit = await McpToolkit.connect({
      servers: { mem: { client } },
      errors: { mode: "throw", redact: [secret] },
    });
    cleanups.push(close, () => toolkit.close());
    const thrown = (await toolkit
      .getTool("fail")!
      .invoke({ message: `upstream rejected ${secret}` })
      .catch((e: unknown) => e)) as McpToolError;
    expect(thrown.message).not.toContain(secret);
    // What mcpErrorMiddleware does with it, knowing nothing of the toolkit's secrets.
    expect(toModelReply(thrown).text).not.toContain(secret);
  });

  it("redacts a token a 401 body echoes, in the error connect() rejects with and in the error event", async () => {
    const token = "bearer-t0ken-abcdef123456";
    const http = await startHttpFixture();
    cleanups.push(() => http.close());
    http.failNext(401, { body: `invalid token ${token}` });
    const events: McpEvent[] = [];
    const error = (await McpToolkit.connect({
      servers: { remote: { transport: "http", url: http.url.href, headers: { Authorization: `Bearer ${token}` } } },
      onEvent: (e) => events.push(e),
    }).catch((e: unknown) => e)) as McpToolError;
    expect(error).toMatchObject({ reason: "unauthorized" });
    expect(error.message).toContain("invalid token [REDACTED]");
    const event = events.find((e) => e.type === "error");
    expect(event?.type === "error" && event.error.message).toContain("invalid token [REDACTED]");
  });
});

describe("a successful result is bounded for the model", () => {
  it("cuts text past maxResultLength with a note and keeps the whole text in the artifact", async () => {
    const { client, close } = await connectInMemory(buildFixtureServer(newState()));
    const toolkit = await McpToolkit.connect({ servers: { mem: { client } }, maxResultLength: 1000 });
    cleanups.push(close, () => toolkit.close());
    const big = "x".repeat(2_000_000);
    const message = (await toolkit.getTool("echo")!.invoke(call("echo", { text: big }))) as ToolMessage;
    expect(message.status).toBe("success");
    expect(message.content).toBe(`${"x".repeat(1000)}… [1999000 more characters cut; the full result is in the tool message's artifact]`);
    expect((message.artifact as { text: string }).text).toBe(big);
  });

  it("leaves a result under the default bound whole", async () => {
    const { client, close } = await connectInMemory(buildFixtureServer(newState()));
    const toolkit = await McpToolkit.connect({ servers: { mem: { client } } });
    cleanups.push(close, () => toolkit.close());
    const text = "y".repeat(50_000);
    expect(await toolkit.getTool("echo")!.invoke({ text })).toBe(text);
    const json = (await toolkit.getTool("echo")!.invoke(call("echo", { text: "z".repeat(150_000) }))) as ToolMessage;
    expect(String(json.content)).toMatch(/… \[50000 more characters cut/);
    expect((json.artifact as McpToolErrorJSON & { text?: string }).text).toHaveLength(150_000);
  });
});
