/** Every reason a connect can fail with has a fix line for a person: never the model's hint. */
import { describe, expect, it } from "vitest";
import { remedyFor } from "../../src/cli/remedies.js";
import { HINTS, REASON_NAMES } from "../../src/errors/reasons.js";

const hints = Object.values(HINTS);
const subjects = [
  { transport: "stdio", target: "mcp-files --root .", connectTimeoutMs: 10_000 },
  { transport: "http", target: "https://mcp.example.com/mcp", connectTimeoutMs: 10_000 },
  { transport: "sse", target: "https://mcp.example.com/sse", connectTimeoutMs: 10_000 },
  { transport: "client", target: "a connected client", connectTimeoutMs: 10_000 },
] as const;

describe("remedyFor", () => {
  it.each(REASON_NAMES)("gives a person something to check or run for %s", (reason) => {
    for (const subject of subjects) {
      const remedy = remedyFor(reason, subject);
      expect(remedy.length, `${reason} over ${subject.transport}`).toBeGreaterThan(20);
      expect(hints, `${reason} over ${subject.transport}`).not.toContain(remedy);
    }
  });

  it("names the command to run for a stdio server, and the URL for a remote one", () => {
    expect(remedyFor("connection_closed", subjects[0])).toContain("run `mcp-files --root .` yourself");
    expect(remedyFor("spawn_failed", { ...subjects[0], program: "mcp-files" })).toContain("`command -v mcp-files` shows yours");
    expect(remedyFor("network_timeout", subjects[1])).toContain("curl -i https://mcp.example.com/mcp");
    expect(remedyFor("method_not_found", subjects[1])).toContain("check the URL's path");
  });
});
