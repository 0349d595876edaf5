/**
 * ERRORS.md in both protocol eras, end to end: every reason a 2026-07-28 server and a 2025 one
 * can both produce is produced by a real server of each era, through the toolkit as an agent
 * calls it (`invoke` with a tool call, reading the ToolMessage's artifact, or the thrown error in
 * `errors.mode: "throw"`). The targets are in ./targets.ts: v2 servers speaking 2026-07-28 over
 * HTTP and stdio; v2 servers speaking 2025 over HTTP (sessions) and stdio; the v1 fixture over
 * HTTP and stdio.
 *
 * This file: the tool's own answers, JSON-RPC errors, and what our side decides. The transport
 * reasons (HTTP statuses, broken streams, processes, sessions) are in taxonomy-transport.test.ts.
 * A reason that only one era can produce says so in its test's name.
 */
import { describe, expect, it } from "vitest";
import { McpToolError } from "../../src/index.js";
import { eventually, useCleanup, type Expected } from "../errors/helpers.js";
import { expectError, expectMatrix, QUICK_MS, shared, SLOW_MS } from "./matrix.js";
import { ALL, ANY_KIND, LEGACY_HTTP, LEGACY_STDIO, MODERN_HTTP, MODERN_STDIO, open, SERVER, V2, WITH_EXTRA_TOOLS } from "./targets.js";
import { stopwatch } from "../timing.js";

const defer = useCleanup();

describe.each(ALL)("$name: the fixture's tools", (target) => {
  const fixture = shared(target);

  it("tool_error: the tool ran and answered isError", async () => {
    const o = await fixture();
    const error = expectError(target, await o.fail("fail", { message: "quota exceeded" }), { reason: "tool_error", kind: "domain", transient: false, outcome: "executed" });
    expect(error.message).toBe("quota exceeded");
    expect(o.executed()).toContain("fail");
  });

  it("invalid_arguments: arguments that break the listed input schema are refused before sending", async () => {
    const o = await fixture();
    const error = expectError(target, await o.fail("echo", { text: 5 }), { reason: "invalid_arguments", kind: "client", transient: false, outcome: "not_sent" });
    expect(error.message).toBe("Invalid arguments: 'text' must be a string (got number).");
    expect(o.executed()).not.toContain("echo");
  });

  it("cancelled: the caller's abort settles a running call at once", async () => {
    const o = await fixture();
    const controller = new AbortController();
    const clock = stopwatch();
    const reply = o.call("slow", { ms: SLOW_MS }, { signal: controller.signal });
    // Aborted once the server runs the tool: the request was sent, so the outcome is unknown.
    await eventually(() => expect(o.executed()).toContain("slow"));
    controller.abort();
    expectError(target, (await reply).error, { reason: "cancelled", kind: "client", transient: false, outcome: "unknown" });
    clock.within(QUICK_MS, "settling at once");
    if (o.upstream) await eventually(() => expect(o.upstream!.state.aborted).toBe(1));
  });

  it("request_timeout: our per-call timeout ends the call, and the server is told to stop", async () => {
    const o = await open(target, defer, { toolkit: { tools: { slow: { timeoutMs: 300 } } } });
    const clock = stopwatch();
    expectError(target, await o.fail("slow", { ms: SLOW_MS }), { reason: "request_timeout", kind: "client", transient: true, outcome: "unknown" });
    clock.within(QUICK_MS, "settling at once");
    if (o.upstream) await eventually(() => expect(o.upstream!.state.aborted).toBe(1));
  });

  it("circuit_open: after a transient failure opens the breaker, the next call is refused unsent", async () => {
    const o = await open(target, defer, { server: { breaker: { enabled: true, failureThreshold: 1, halfOpenAfterMs: 60_000 } }, toolkit: { tools: { slow: { timeoutMs: 300 } } } });
    expectError(target, await o.fail("slow", { ms: SLOW_MS }), { reason: "request_timeout", kind: "client", transient: true, outcome: "unknown" });
    expect(o.toolkit.circuitState(SERVER)).toBe("open");
    const error = expectError(target, await o.fail("echo", { text: "x" }), { reason: "circuit_open", kind: "client", transient: true, outcome: "not_sent" });
    expect(error.message).toContain("last: request_timeout");
    expect(o.executed()).not.toContain("echo");
  });

  it("closed: after toolkit.close() a call fails at once, unsent (errors.mode throw: the McpToolError itself)", async () => {
    const o = await open(target, defer, { toolkit: { errors: { mode: "throw" } } });
    // In throw mode the same classification comes as the thrown error.
    const thrown = await o.call("fail", { message: "nope" }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(McpToolError);
    expectError(target, (thrown as McpToolError).toJSON(), { reason: "tool_error", kind: "domain", transient: false, outcome: "executed" });
    await o.toolkit.close();
    const closed = await o.call("echo", { text: "x" }).catch((e: unknown) => e);
    expect(closed).toBeInstanceOf(McpToolError);
    expectError(target, (closed as McpToolError).toJSON(), { reason: "closed", kind: "client", transient: false, outcome: "not_sent" });
    expect(o.executed()).not.toContain("echo");
  });
});

describe.each(WITH_EXTRA_TOOLS)("$name: validation and a stale tool list", (target) => {
  const fixture = shared(target);

  it("invalid_params: the server's own input validation rejects what our schema check let through", async () => {
    const o = await fixture();
    const error = expectError(target, await o.fail("even", { n: 3 }), { reason: "invalid_params", kind: "domain", transient: false, outcome: "not_sent" });
    expect(error.message).toContain("n must be even");
    expect(o.executed()).not.toContain("even");
  });

  // Last in the block: it disables `even` on the shared connection's server.
  it("tool_not_found: a tool the server disabled after we listed it", async () => {
    const o = await fixture();
    expect(await o.call("retire", { name: "even" })).toMatchObject({ status: "success" });
    const error = await o.fail("even", { n: 2 });
    // A v2 server answers -32602 "Tool even disabled"; a v1 server answers it as an isError result.
    const want: Expected = target.sdk === "v2" ? { reason: "tool_not_found", kind: "protocol", transient: false, outcome: "not_sent", code: -32602 } : { reason: "tool_not_found", kind: "domain", transient: false, outcome: "not_sent" };
    expectError(target, error, want);
    expect(error.message).toMatch(/^Tool even disabled/);
  });
});

describe.each(V2)("$name: input the client cannot give", (target) => {
  const fixture = shared(target);

  it("elicitation_required: a tool asks for a confirmation, and no handler can answer", async () => {
    const o = await fixture();
    const error = await o.fail("confirm", { action: "deploy" });
    // 2026-07-28: the server's input request is refused with -32021 naming elicitation; 2025: the
    // SDK's shim cannot send elicitation/create to a client without the capability and says so.
    const want: Expected =
      target.era === "modern"
        ? { reason: "elicitation_required", kind: "protocol", transient: false, outcome: "not_sent", code: -32021 }
        : { reason: "elicitation_required", kind: "domain", transient: false, outcome: "not_sent" };
    expectError(target, error, want);
    expect(o.executed()).toContain("confirm");
  });

  it("elicitation_required: a tool needs the user to visit a URL", async () => {
    const o = await fixture();
    const error = await o.fail("sign_in_url", {});
    const want: Expected =
      target.era === "modern"
        ? { reason: "elicitation_required", kind: "protocol", transient: false, outcome: "not_sent", code: -32021 }
        : { reason: "elicitation_required", kind: "domain", transient: false, outcome: "not_sent" };
    expectError(target, error, want);
  });
});

describe.each([LEGACY_HTTP, LEGACY_STDIO])("$name: URL elicitation as a 2025 error", (target) => {
  it("elicitation_required from -32042 (2025 only: the 2026-07-28 revision has no -32042)", async () => {
    const o = await open(target, defer);
    const error = expectError(target, await o.fail("sign_in", {}), { reason: "elicitation_required", kind: "protocol", transient: false, outcome: "not_sent", code: -32042 });
    expect(error.message).toContain("URL elicitation required");
  });
});

describe.each([MODERN_HTTP, MODERN_STDIO])("$name: a 2025 idiom on a 2026-07-28 server", (target) => {
  it("internal_error: a handler that throws the 2025 -32042 gets -32603 from its own SDK (2026-07-28 only)", async () => {
    const o = await open(target, defer);
    const error = expectError(target, await o.fail("sign_in", {}), { reason: "internal_error", kind: "protocol", transient: true, outcome: "unknown", code: -32603 });
    expect(error.message).toContain("inputRequired.elicitUrl");
  });
});

describe.each(ANY_KIND)("$name: JSON-RPC errors from a low-level server", (target) => {
  const server = shared(target, { kind: "protocol" });

  it("internal_error: -32603", async () => {
    const o = await server();
    expectError(target, await o.fail("raise", { code: -32603, message: "database down" }), { reason: "internal_error", kind: "protocol", transient: true, outcome: "unknown", code: -32603 });
  });

  it.each([-32000, -32050])("server_error: the server-defined %i", async (code) => {
    const o = await server();
    // 2026-07-28: an unknown code in -32020..-32099 is not retried without data.retryAfterMs.
    const transient = !(target.era === "modern" && code <= -32020);
    expectError(target, await o.fail("raise", { code, message: "backend failed" }), { reason: "server_error", kind: "protocol", transient, outcome: "unknown", code });
  });

  it("invalid_params: -32602 from a server that validates its own arguments", async () => {
    const o = await server();
    expectError(target, await o.fail("raise", { code: -32602, message: "Invalid arguments: n must be even" }), { reason: "invalid_params", kind: "protocol", transient: false, outcome: "not_sent", code: -32602 });
  });

  // Last: the server's wait (data.retryAfter) holds back the next call to it, as it should.
  it("rate_limited: a JSON-RPC 429 with data.retryAfter (seconds)", async () => {
    const o = await server();
    expectError(target, await o.fail("raise", { code: 429, message: "slow down", data: { retryAfter: 1 } }), { reason: "rate_limited", kind: "protocol", transient: true, outcome: "not_sent", code: 429, retryAfterMs: 1000 });
  });

  it("rate_limited: a server-defined code with data.retryAfter", async () => {
    const o = await server();
    expectError(target, await o.fail("raise", { code: -32050, message: "busy", data: { retryAfter: 3 } }), { reason: "rate_limited", kind: "protocol", transient: true, outcome: "not_sent", code: -32050, retryAfterMs: 3000 });
  });
});

describe.each(ANY_KIND)("$name: structured output that breaks the tool's output schema", (target) => {
  const server = shared(target, { kind: "outputs" });

  it("output_schema_mismatch: the client's own check rejects structuredContent of the wrong type (executed, not invalid_params)", async () => {
    const o = await server();
    const error = expectError(target, await o.fail("wrong_structured", {}), { reason: "output_schema_mismatch", kind: "client", transient: false, outcome: "executed", code: -32602 });
    expect(error.message).toContain("does not match the tool's output schema");
  });

  it("output_schema_mismatch: a result without the structuredContent the output schema asks for", async () => {
    const o = await server();
    expectError(target, await o.fail("no_structured", {}), { reason: "output_schema_mismatch", kind: "client", transient: false, outcome: "executed", code: -32600 });
  });
});

expectMatrix([
  "tool_error",
  "invalid_arguments",
  "invalid_params",
  "tool_not_found",
  "internal_error",
  "server_error",
  "rate_limited",
  "request_timeout",
  "cancelled",
  "elicitation_required",
  "output_schema_mismatch",
  "circuit_open",
  "closed",
]);
