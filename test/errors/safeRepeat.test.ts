/** The one repeat rule: which fact makes repeating a failed call safe. */
import { describe, expect, it } from "vitest";
import { McpToolError } from "../../src/errors/McpToolError.js";
import { isSafeToRetry, mayResend, repeatFact } from "../../src/errors/safeRepeat.js";

const reset = (data?: unknown) => McpToolError.of("connection_reset", "socket hang up", { toolName: "transfer", ...(data !== undefined ? { data } : {}) });

describe("repeatFact", () => {
  it("names idempotency_key for an unknown outcome of a call that carried a key the server honours", () => {
    const error = reset({ idempotencyKey: "2b1f0c6e-0000-4000-8000-000000000000" });
    expect(error.outcome).toBe("unknown");
    expect(repeatFact(error)).toBe("idempotency_key");
    expect(isSafeToRetry(error)).toBe(true);
  });

  it("finds no fact for the same failure without a key", () => {
    expect(repeatFact(reset())).toBeUndefined();
    expect(repeatFact(reset({ other: 1 }))).toBeUndefined();
    expect(isSafeToRetry(reset())).toBe(false);
  });

  it("repeats no unknown outcome, keyed or not, under retryUnknownOutcome: false", () => {
    expect(repeatFact(reset({ idempotencyKey: "k" }), false, false)).toBeUndefined();
  });

  it("never lets a key re-send a call on a new session (mayResend needs not_sent) or repeat a cancel", () => {
    expect(mayResend(reset({ idempotencyKey: "k" }))).toBe(false);
    const cancelled = McpToolError.of("cancelled", "aborted", { data: { idempotencyKey: "k" } });
    expect(repeatFact(cancelled)).toBeUndefined();
  });
});
