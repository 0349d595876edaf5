/**
 * ERRORS.md, "Transport errors": a connect that is never accepted. It waits out undici's fixed
 * 10 s connect timeout, so it runs in `npm run test:faults` with the other long cases, not in
 * `npm test` (test/errors/transport.e2e.test.ts has the other socket failures).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { normalize } from "../../src/errors/normalize.js";
import { blackholePort, expectClassified, rejectionOf, useCleanup } from "../errors/helpers.js";

const defer = useCleanup();

describe("transport errors below HTTP: a connect that is never accepted", () => {
  it("classifies it (cause UND_ERR_CONNECT_TIMEOUT, after undici's 10 s) as network_timeout", async () => {
    const blackhole = await blackholePort();
    defer(blackhole.close);
    const client = new Client({ name: "test-client", version: "1.0.0" });
    defer(() => client.close());
    const error = await rejectionOf(client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${blackhole.port}/mcp`))));
    expect(error).toMatchObject({ message: "fetch failed", cause: { code: "UND_ERR_CONNECT_TIMEOUT" } });
    expectClassified(normalize(error), { reason: "network_timeout", kind: "transport", transient: true, outcome: "not_sent" }, error);
  });
});
