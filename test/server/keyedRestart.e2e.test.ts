/**
 * A keyed write whose server restarts between running it and answering: a real v1 SDK McpServer
 * on 127.0.0.1 (streamable HTTP, then legacy SSE), its `charge` tool wrapped in `withIdempotency`
 * with one store that outlives the server's sessions and its restart. The charge's handler takes
 * the server down after charging, so its answer never leaves; the test brings it back on the same
 * port once the toolkit has met the failure. The toolkit repeats the call because it carries a key:
 * every send of it, the one on the new session included, carries the same key, and the charge runs
 * once. Before, whether to key a send was asked of the connection's client of the moment, which is
 * none while reconnecting: the repeat went out keyless on the new session and charged twice. (A
 * tool whose schema takes the key was keyed on every send then too: its case guards the contract.)
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { IDEMPOTENCY_KEY_META, idempotencyCapability, MemoryIdempotencyStore, withIdempotency } from "../../src/server/index.js";
import { eventually } from "../errors/helpers.js";
import { server as startServer, toolkitFor } from "../network/helpers.js";
import type { HttpFixture } from "../servers/http.js";

interface Ledger {
  /** Executions of the charge itself, by memo. */
  charged: Map<string, number>;
  /** The key of every tools/call of `charge` the server received, in order (from `_meta`, or from the arguments). */
  keys: (string | undefined)[];
}

type Mode = "streamable" | "sse";

/**
 * The bank: `charge` is not idempotent and takes its key in `_meta` (the server declares the
 * capability), or (`keyProperty`) in an `idempotency_key` argument of its schema. The first
 * execution takes the whole HTTP server down before it answers: a crash after the write.
 */
async function bank(mode: Mode, keyProperty: boolean) {
  const ledger: Ledger = { charged: new Map(), keys: [] };
  // One store for every session and both lives of the server: what a Redis store gives a real one.
  const store = new MemoryIdempotencyStore();
  let http: HttpFixture | undefined;
  let crashed = false;
  let markDown!: () => void;
  const down = new Promise<void>((resolve) => (markDown = resolve));
  const charge = withIdempotency(
    async (args: { memo: string; cents: number }) => {
      ledger.charged.set(args.memo, (ledger.charged.get(args.memo) ?? 0) + 1);
      if (!crashed) {
        crashed = true;
        await http!.down();
        markDown();
      }
      return { content: [{ type: "text" as const, text: `charged ${args.cents} (${args.memo})` }] };
    },
    { store },
  );
  http = await startServer({
    mode,
    build: () => {
      const mcp = new McpServer({ name: "bank", version: "1.0.0" }, keyProperty ? {} : { capabilities: { experimental: idempotencyCapability } });
      const inputSchema: Record<string, z.ZodType> = keyProperty ? { memo: z.string(), cents: z.number(), idempotency_key: z.string() } : { memo: z.string(), cents: z.number() };
      mcp.registerTool("charge", { description: "Charges a card (not idempotent).", inputSchema, annotations: { idempotentHint: false } }, async (args, extra) => {
        const given = (args as { idempotency_key?: string }).idempotency_key;
        ledger.keys.push(keyProperty ? given : (extra._meta?.[IDEMPOTENCY_KEY_META] as string | undefined));
        return charge(args as { memo: string; cents: number }, extra);
      });
      return mcp;
    },
  });
  const serverConfig = mode === "sse" ? ({ transport: "sse" } as never) : {};
  const agent = await toolkitFor(http.url, serverConfig, { retry: { retries: 6, minTimeout: 50, maxTimeout: 1_000, randomize: false }, timeoutMs: 20_000 });
  return { ledger, http, down, ...agent };
}

/** Charges once through a restart of the server, and checks the server saw one key and one charge. */
async function chargeThroughRestart(mode: Mode, keyProperty: boolean): Promise<void> {
  const { ledger, http, down, call, events } = await bank(mode, keyProperty);
  const reply = call("charge", { memo: "rent", cents: 2500 });
  await down;
  // The toolkit met the lost answer before the server is back: the repeat goes to a new server process.
  await eventually(() => expect(events.some((e) => e.type === "retry")).toBe(true));
  await http.up();
  const answer = await reply;
  expect(ledger.keys.length, "tools/call requests of the charge the server received").toBeGreaterThanOrEqual(2);
  expect(ledger.keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(ledger.keys, "the key of every send of the one call").toEqual(ledger.keys.map(() => ledger.keys[0]));
  expect(ledger.charged.get("rent"), "charges run for one call").toBe(1);
  expect(answer).toMatchObject({ status: "success", content: "charged 2500 (rent)" });
  // Repeated because it carried a key: the lost answer left the outcome unknown.
  expect(events.find((e) => e.type === "retry")).toMatchObject({ error: { outcome: "unknown", data: { idempotencyKey: ledger.keys[0] } } });
}

describe("a keyed charge whose server restarts after charging and before answering", () => {
  it("is repeated on the new session under the same key in _meta over streamable HTTP, and charges once", async () => {
    await chargeThroughRestart("streamable", false);
  });

  it("is repeated on the new session under the same key in _meta over legacy SSE, and charges once", async () => {
    await chargeThroughRestart("sse", false);
  });

  it("is repeated under the same key when the tool takes it as its idempotency_key argument, and charges once", async () => {
    await chargeThroughRestart("streamable", true);
  });
});
