/**
 * The long-running cases of the call's lifecycle, run by `npm run test:faults` with the chaos
 * and restart suites: a call that progress keeps alive for over a minute.
 */
import { describe, expect, it } from "vitest";
import { McpToolkit } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater, replyOf } from "../servers/replies.js";
import { startHttpFixture } from "../servers/http.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

describe("resetTimeoutOnProgress on a call that starts during a reconnect", () => {
  it(
    "lets a tool that reports progress run past timeoutMs and past the SDK's backstop",
    async () => {
      const http = later(await startHttpFixture());
      const toolkit = later(
        await McpToolkit.connect({
          servers: { s: { transport: "http", url: http.url.href } },
          timeoutMs: 1000,
          tools: { slow: { resetTimeoutOnProgress: true } },
        }),
      );
      // The server forgets the session: the call's first attempt meets a 404, and its second
      // starts while the toolkit re-initializes.
      await http.forgetSessions();
      const events: string[] = [];
      // Past 61 s, the SDK's backstop (timeoutMs + 60 s) unless progress resets it too.
      const reply = await replyOf(toolkit.getTool("slow"), { ms: 62_000, progressEveryMs: 250 });
      events.push(...http.state.calls);
      expect(reply.error).toBeUndefined();
      expect(events).toEqual(["slow"]);
    },
    120_000,
  );
});
