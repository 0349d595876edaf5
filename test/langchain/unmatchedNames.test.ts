/**
 * A tool name in the configuration that names no tool (a `toolFilter` pattern, a `tools` policy
 * key) is a `warning` event with the listed tool it probably meant, and under `strict: true` the
 * error `connect()` rejects with. Real stdio fixture server (tools echo, fail, counter, …).
 */
import { describe, expect, it } from "vitest";
import { McpConfigError, McpToolkit, type McpEvent, type McpToolkitConfig } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater } from "../servers/replies.js";
import { stdioFixtureCommand } from "../servers/stdio.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

async function warningsOf(config: Partial<McpToolkitConfig>, server: Record<string, unknown> = {}) {
  const events: McpEvent[] = [];
  later(await McpToolkit.connect({ servers: { s: { transport: "stdio", ...stdioFixtureCommand(), ...server } }, onEvent: (e) => events.push(e), ...config } as McpToolkitConfig));
  return events.filter((e) => e.type === "warning");
}

describe("a tool name that names no tool", () => {
  it("in toolFilter.allow is a warning naming the field and the tool it probably meant", async () => {
    const warnings = await warningsOf({}, { toolFilter: { allow: ["ecoh", "fail"] } });
    expect(warnings).toEqual([{ type: "warning", field: "servers.s.toolFilter.allow[0]", message: expect.stringContaining('did you mean "echo"?') }]);
  });

  it("as a tools policy key is a warning: its policy would never apply", async () => {
    const warnings = await warningsOf({ tools: { countr: { retry: { retries: 0 } }, "s/ech*": { timeoutMs: 5_000 }, echo: { timeoutMs: 5_000 } } });
    expect(warnings).toEqual([{ type: "warning", field: "tools.countr", message: expect.stringMatching(/never applied; did you mean "counter"\?$/) }]);
  });

  it("under strict: true makes connect() reject with McpConfigError naming the field", async () => {
    const rejected = await McpToolkit.connect({ servers: { s: { transport: "stdio", ...stdioFixtureCommand(), toolFilter: { deny: ["crsh"] } } }, strict: true }).then(
      (toolkit) => toolkit.close().then(() => undefined),
      (e: unknown) => e,
    );
    expect(rejected).toBeInstanceOf(McpConfigError);
    expect((rejected as McpConfigError).field).toBe("servers.s.toolFilter.deny[0]");
    expect(String(rejected)).toContain('did you mean "crash"?');
  });

  it("is not judged for a server whose tools are not known yet (an optional one that failed)", async () => {
    const warnings = await warningsOf({
      servers: {
        s: { transport: "stdio", ...stdioFixtureCommand() },
        down: { transport: "http", url: "http://127.0.0.1:1/mcp", required: false, reconnect: { enabled: false } },
      },
      tools: { "down/search": { timeoutMs: 1_000 }, "s/echo": { timeoutMs: 1_000 } },
    });
    expect(warnings).toEqual([]);
  });
});

describe("doctor", () => {
  it("reports a tool name that names no tool as a warning line, with the tool it probably meant", async () => {
    const { runDoctor } = await import("../../src/cli/doctor.js");
    const { formatReport } = await import("../../src/cli/format.js");
    const report = await runDoctor({ servers: { s: { transport: "stdio", ...stdioFixtureCommand(), toolFilter: { allow: ["ecoh"] } } }, tools: { countr: { timeoutMs: 1_000 } } });
    expect(report.warnings).toEqual([expect.stringMatching(/^servers\.s\.toolFilter\.allow\[0\]: .*did you mean "echo"\?$/), expect.stringMatching(/^tools\.countr: .*did you mean "counter"\?$/)]);
    expect(formatReport(report)).toContain('warning: tools.countr: \'countr\' matches no tool');
  });
});
