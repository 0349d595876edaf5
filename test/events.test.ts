import { describe, expect, it } from "vitest";
import { EventHub } from "../src/eventHub.js";
import { McpToolError, type McpEvent } from "../src/index.js";

describe("EventHub", () => {
  it("redacts an event's error only for an event someone receives", () => {
    let redactions = 0;
    const hub = new EventHub(undefined, {
      error: (error) => {
        redactions++;
        return error.with({ message: "[redacted]" });
      },
      text: (text) => text,
      value: (value) => value,
    });
    const retries: McpEvent[] = [];
    hub.on("retry", (e) => retries.push(e));
    const error = McpToolError.of("service_unavailable", "token abc");
    hub.emit({ type: "error", toolName: "t", error });
    expect(redactions).toBe(0);
    hub.emit({ type: "retry", toolName: "t", attempt: 1, delayMs: 10, error });
    expect(redactions).toBe(1);
    expect(retries).toMatchObject([{ type: "retry", error: { message: "[redacted]" } }]);
  });
});
