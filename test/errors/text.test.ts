/**
 * The text the model reads (ERRORS.md, "The text the model reads"). Pure functions, so every
 * input here is built by hand.
 */
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import * as api from "../../src/index.js";
import { ErrorHandler } from "../../src/ErrorHandler.js";
import { McpToolError } from "../../src/errors/McpToolError.js";
import { normalize } from "../../src/errors/normalize.js";
import { HINTS, REASON_NAMES, type Reason } from "../../src/errors/reasons.js";
import { REDACTED } from "../../src/errors/redact.js";
import { DEFAULT_MAX_LENGTH } from "../../src/config/index.js";
import {
  cleanMessage,
  handleError,
  handleResponseError,
  hintFor,
  NO_MESSAGE,
  safeMessage,
  toModelText,
  toSafeJSON,
  truncate,
  wrapToolError,
} from "../../src/errors/text.js";
import { stopwatch } from "../timing.js";

const ESC = "\u001b";
const err = (reason: Reason, message: string, overrides: Parameters<typeof McpToolError.of>[2] = {}) =>
  McpToolError.of(reason, message, { toolName: "search", ...overrides });

/** The `<message>` part of a model line, between "): " and the hint. */
function messagePart(line: string, hint: string): string {
  const start = line.indexOf("): ") + 3;
  expect(line.endsWith(` ${hint}`)).toBe(true);
  return line.slice(start, line.length - hint.length - 1);
}

describe("toModelText: the one line the model reads", () => {
  it("reads Error: Tool '<name>' failed (<reason>): <message> <hint>", () => {
    const text = toModelText(new McpError(-32602, "date must be ISO 8601"), { toolName: "search" });
    expect(text).toBe(`Error: Tool 'search' failed (invalid_params): date must be ISO 8601. ${HINTS.fix_arguments}`);
  });

  it("names the tool the error carries, else the one in the options, else the MCP call", () => {
    expect(toModelText(err("tool_error", "x"), { toolName: "other" })).toMatch(/^Error: Tool 'search' failed/);
    expect(toModelText(new Error("x"), { toolName: "other" })).toMatch(/^Error: Tool 'other' failed/);
    expect(toModelText(new Error("x"))).toMatch(/^Error: The MCP call failed \(unknown\): x\. /);
    // A name that cleaning leaves empty is no name either.
    expect(toModelText(new Error("x"), { toolName: "\u0000\n" })).toMatch(/^Error: The MCP call failed /);
  });

  it("keeps a tool name on one line and free of escapes", () => {
    const text = toModelText(new Error("x"), { toolName: `evil${ESC}[31m\nname\u0000` });
    expect(text).toMatch(/^Error: Tool 'evil name' failed/);
  });

  it("keeps a message's own final punctuation instead of adding a period", () => {
    expect(toModelText(err("tool_error", "Quota exceeded!"))).toContain("): Quota exceeded! ");
    expect(toModelText(err("tool_error", "Quota exceeded"))).toContain("): Quota exceeded. ");
  });

  it("says so when the message is empty, or nothing is left of it after cleaning", () => {
    expect(toModelText(err("tool_error", ""))).toContain(`(tool_error): ${NO_MESSAGE} `);
    expect(toModelText(err("tool_error", `${ESC}[31m${ESC}[0m\u0007`))).toContain(`(tool_error): ${NO_MESSAGE} `);
  });

  describe("attempts", () => {
    it("says how many attempts were made when there was more than one", () => {
      const text = toModelText(err("service_unavailable", "down", { attempts: 3 }));
      expect(text).toMatch(/^Error: Tool 'search' failed \(service_unavailable\) after 3 attempts: down\. /);
    });

    it("says nothing about attempts after a single one", () => {
      expect(toModelText(err("service_unavailable", "down", { attempts: 1 }))).not.toContain("attempt");
      expect(toModelText(err("service_unavailable", "down"))).not.toContain("attempt");
    });
  });

  describe("hints", () => {
    it.each(["invalid_params", "invalid_arguments"] as const)("tells the model to fix the arguments for %s", (reason) => {
      expect(toModelText(err(reason, "bad date")).endsWith(` ${HINTS.fix_arguments}`)).toBe(true);
      expect(HINTS.fix_arguments).toMatch(/fix the arguments/i);
    });

    it("tells the model to fix the arguments even after several attempts", () => {
      expect(toModelText(err("invalid_params", "bad", { attempts: 4 })).endsWith(HINTS.fix_arguments)).toBe(true);
    });

    it("does not say retries are exhausted when the breaker stopped them with attempts left", () => {
      const text = toModelText(err("circuit_open", "paused", { attempts: 2 }));
      expect(text).not.toContain(HINTS.retries_exhausted);
      expect(text.endsWith(` ${HINTS.try_later}`)).toBe(true);
    });

    it.each(["service_unavailable", "rate_limited", "connection_refused", "network_timeout", "session_expired"] as const)(
      "tells the model to try later or use another tool when %s exhausted its retries",
      (reason) => {
        const text = toModelText(err(reason, "nope", { attempts: 3 }));
        expect(text.endsWith(` ${HINTS.retries_exhausted}`)).toBe(true);
        expect(HINTS.retries_exhausted).toMatch(/try again later or use another tool/);
      },
    );

    it("tells the model the failure is likely temporary after a single transient attempt", () => {
      expect(toModelText(err("service_unavailable", "down")).endsWith(` ${HINTS.try_later}`)).toBe(true);
    });

    it("tells the model not to retry a permanent failure of a usually transient reason", () => {
      const e = err("dns_failure", "getaddrinfo ENOTFOUND mcp.example.com", { transient: false });
      expect(toModelText(e).endsWith(` ${HINTS.use_another_tool}`)).toBe(true);
    });

    it.each(["unauthorized", "forbidden", "elicitation_required"] as const)("says a person must act for %s, however many attempts", (reason) => {
      expect(toModelText(err(reason, "no")).endsWith(` ${HINTS.person_must_act}`)).toBe(true);
      expect(toModelText(err(reason, "no", { attempts: 3 })).endsWith(` ${HINTS.person_must_act}`)).toBe(true);
      expect(HINTS.person_must_act).toMatch(/do not retry.*person must act/i);
    });

    it.each(["request_timeout", "connection_closed", "internal_error", "connection_reset", "stream_error", "unknown"] as const)(
      "tells the model to check before repeating when %s left the outcome unknown",
      (reason) => {
        const e = err(reason, "lost");
        expect(e.outcome).toBe("unknown");
        expect(toModelText(e).endsWith(` ${HINTS.unknown_outcome}`)).toBe(true);
        expect(toModelText(e.with({ attempts: 3 })).endsWith(` ${HINTS.unknown_outcome}`)).toBe(true);
        expect(HINTS.unknown_outcome).toMatch(/check whether it took effect/i);
      },
    );

    it("does not ask for a check on an idempotent tool: the usual transient hints apply", () => {
      const e = err("request_timeout", "timed out");
      expect(toModelText(e, { idempotent: true }).endsWith(` ${HINTS.try_later}`)).toBe(true);
      expect(toModelText(e.with({ attempts: 3 }), { idempotent: true }).endsWith(` ${HINTS.retries_exhausted}`)).toBe(true);
    });

    it("tells a cancelled call not to retry rather than to check its outcome", () => {
      expect(toModelText(err("cancelled", "cancelled")).endsWith(` ${HINTS.cancelled}`)).toBe(true);
    });

    it("gives the tool's own error a hint to read it, and a stale tool list a hint to refresh", () => {
      expect(toModelText(err("tool_error", "quota exceeded")).endsWith(` ${HINTS.read_tool_message}`)).toBe(true);
      expect(toModelText(err("tool_not_found", "Tool x not found")).endsWith(` ${HINTS.stale_tool_list}`)).toBe(true);
    });

    it.each(REASON_NAMES)("gives %s one of the table's hints, with one attempt and with three", (reason) => {
      for (const attempts of [1, 3]) {
        const hint = hintFor(err(reason, "m", { attempts }));
        expect(Object.values(HINTS)).toContain(hint);
      }
    });

    it("does not throw for a reason outside the table (a cast or a deserialized error)", () => {
      const e = new McpToolError({ kind: "client", reason: "not_a_reason" as Reason, transient: false, outcome: "not_sent", message: "odd" });
      expect(toModelText(e)).toBe(`Error: The MCP call failed (not_a_reason): odd. ${HINTS.use_another_tool}`);
      expect(handleError(e)).toBe("MCP client error (not_a_reason): odd");
    });
  });
});

describe("cleaning the server's message", () => {
  it("strips repeated 'MCP error -32602:' prefixes", () => {
    const e = err("tool_error", "MCP error -32602: MCP error -32602: Input validation error: bad date");
    expect(toModelText(e)).toContain("(tool_error): Input validation error: bad date. ");
    expect(cleanMessage("MCP error -32602: MCP error -32602: MCP error -32603: x")).toBe("x");
  });

  it("removes V8 stack frames, keeping the message and lines that are not frames", () => {
    const message = [
      "Error: boom",
      "    at handler (/app/server.js:10:5)",
      "    at new Promise (<anonymous>)",
      "    at Array.map (<anonymous>)",
      "    at async Promise.all (index 0)",
      "    at Foo.bar [as baz] (file:///app/foo.mjs:1:2)",
      "    at file:///app/main.mjs:3:4",
      "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
      "Caused by: the database is down",
    ].join("\n");
    expect(cleanMessage(message)).toBe("Error: boom\nCaused by: the database is down");
  });

  it("removes coloured stack frames, Java frames and Python tracebacks", () => {
    expect(cleanMessage(`boom\n${ESC}[90m    at f (node:internal/x:1:2)${ESC}[39m`)).toBe("boom");
    expect(cleanMessage("java.lang.IllegalStateException: no\n\tat com.acme.A.run(A.java:12)\n\t... 3 more")).toBe(
      "java.lang.IllegalStateException: no",
    );
    const py = 'Traceback (most recent call last):\n  File "/app/x.py", line 3, in <module>\n    main()\nValueError: bad input';
    expect(cleanMessage(py)).toBe("ValueError: bad input");
  });

  it("keeps prose that merely starts with 'at'", () => {
    expect(cleanMessage("name too short:\nat least 3 characters (got 2)")).toBe("name too short:\nat least 3 characters (got 2)");
    expect(cleanMessage("at startup (see docs)")).toBe("at startup (see docs)");
  });

  it("removes ANSI colours (7-bit and 8-bit CSI) and charset escapes", () => {
    expect(cleanMessage(`${ESC}[1;31mred${ESC}[0m and ${ESC}[38;5;208morange${ESC}[m`)).toBe("red and orange");
    expect(cleanMessage(`\u009b31mred\u009b0m`)).toBe("red");
    expect(cleanMessage(`${ESC}[1mbold${ESC}(B${ESC}[m text`)).toBe("bold text");
  });

  it("removes OSC hyperlinks, whether ended by ST or by BEL", () => {
    expect(cleanMessage(`see ${ESC}]8;;https://example.com/doc${ESC}\\the docs${ESC}]8;;${ESC}\\ now`)).toBe("see the docs now");
    expect(cleanMessage(`see ${ESC}]8;;https://example.com\u0007here${ESC}]8;;\u0007`)).toBe("see here");
  });

  it("removes control characters but keeps newlines and tabs; CRLF becomes one newline", () => {
    expect(cleanMessage("a\u0000b\u0007c\u0008d\u007fe\u0085f")).toBe("abcdef");
    expect(cleanMessage("a\tb\r\nc\rd")).toBe("a\tb\nc\nd");
  });

  it("removes invisible characters a reader would not see but a model would read", () => {
    expect(cleanMessage("a\u200bb\u202ec\ufeffd")).toBe("abcd");
    const tagged = `ok${String.fromCodePoint(0xe0049, 0xe0067, 0xe006e)}!`; // Unicode tag characters
    expect(cleanMessage(tagged)).toBe("ok!");
  });

  it("collapses blank lines and trims", () => {
    expect(cleanMessage("\n\n  one\n\n\ntwo  \n")).toBe("one\ntwo");
  });
});

describe("truncation", () => {
  it("cuts at 1,000 characters by default and says how many were cut", () => {
    expect(DEFAULT_MAX_LENGTH).toBe(1000);
    const out = safeMessage("a".repeat(1500));
    expect(out).toBe(`${"a".repeat(1000)}… [500 more characters cut]`);
  });

  it("does not cut a message of exactly the maximum length", () => {
    expect(safeMessage("a".repeat(1000))).toBe("a".repeat(1000));
  });

  it("honours a custom maxLength", () => {
    expect(safeMessage("abcdefghijklmnopqrstuvwxyz", { maxLength: 10 })).toBe("abcdefghij… [16 more characters cut]");
    const line = toModelText(err("tool_error", "x".repeat(300)), { maxLength: 50 });
    expect(line).toContain(`(tool_error): ${"x".repeat(50)}… [250 more characters cut] ${HINTS.read_tool_message}`);
  });

  it("handles a 1 MB message quickly and counts what it cut", () => {
    const clock = stopwatch();
    const out = safeMessage("x".repeat(1_000_000));
    clock.within(2000, "cutting a 1 MB message (CPU time)", clock.cpu());
    expect(out).toBe(`${"x".repeat(1000)}… [about 999000 more characters cut]`);
  });

  it("counts the cut in cleaned characters: escapes stripped from a 1 MB message are not counted", () => {
    const out = safeMessage(`${ESC}[31mab${ESC}[0m`.repeat(90_000)); // 990,000 characters raw, 180,000 clean
    // Only a head is read, so the rest is counted by the head's ratio of clean to raw, and said to be "about".
    const match = new RegExp(`^${"ab".repeat(500)}… \\[about (\\d+) more characters cut\\]$`).exec(out);
    expect(match).not.toBeNull();
    expect(Math.abs(Number(match![1]) - 179_000)).toBeLessThan(179_000 * 0.01);
  });

  it("cleans only a head of a huge message: the cost stops growing with its size", () => {
    const line = `${ESC}[31mred${ESC}[0m `;
    const cut = safeMessage(line.repeat(1_000_000));
    expect(cut).toBe(safeMessage(line.repeat(200_000)).replace(/\[about \d+/, cut.match(/\[about \d+/)![0]));
    expect(cut).toMatch(/^(red ){200,}/);
  });

  it("handles a 1 MB message of secrets and key names without slowing down", () => {
    const clock = stopwatch();
    const out = safeMessage("api_key_".repeat(125_000) + "=x", { maxLength: 100_000 });
    clock.within(5000, "a 1 MB message of key names (CPU time)", clock.cpu());
    expect(out).toContain("more characters cut]");
  });

  it("never leaves half of a surrogate pair at the cut", () => {
    const out = truncate("ab😀cd", 3);
    expect(out).toBe("ab… [4 more characters cut]");
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it("redacts before cutting, so a secret across the cut shows none of itself", () => {
    const secret = "s3cret-Value-0123456789";
    const out = safeMessage(`${"a".repeat(995)}${secret} tail`, { secrets: [secret] });
    expect(out).toBe(`${"a".repeat(995)}[REDA… [10 more characters cut]`);
  });
});

describe("the cut before redaction of a huge message (the weak spot)", () => {
  const secret = "Zq9-configured-SECRET-value-0123456789";

  it("leaves no piece of a configured secret that straddles the cut, even when cleaning shrinks the text before it", () => {
    for (const offset of [5000, 6000, 6600, 6700, 6750, 6800, 7000, 9000]) {
      for (const filler of ["\u0001", `${ESC}[0m`, "x"]) {
        const head = filler.repeat(Math.ceil(offset / filler.length)).slice(0, offset);
        const out = safeMessage(`${head}${secret}${"y".repeat(20_000)}`, { secrets: [secret] });
        expect(out, `offset ${offset}`).not.toContain("Zq9");
        expect(out).not.toContain("SECRET");
      }
    }
  });

  it("leaves no piece of a configured secret when the secrets before the cut shrink to [REDACTED]", () => {
    const long = `Zq9${"k".repeat(200)}`;
    const out = safeMessage(`${long} `.repeat(200), { secrets: [long] });
    expect(out).not.toContain("Zq9");
    expect(out).not.toContain("kkkk");
  });

  it("leaves no piece of a token shape that straddles the cut after earlier tokens shrank to [REDACTED]", () => {
    const filler = `sk-${"a".repeat(90)} `; // 94 characters that redact to 11
    for (let offset = 6400; offset <= 7400; offset += 37) {
      const head = filler.repeat(Math.ceil(offset / filler.length)).slice(0, offset);
      const out = safeMessage(`${head} sk-proj-QZQZ${"b".repeat(60)} ${"z ".repeat(5000)}`);
      expect(out, `offset ${offset}`).not.toContain("QZQZ");
      expect(out).not.toContain("sk-proj");
      expect(out).not.toMatch(/sk-a/);
    }
  });

  it("redacts a configured secret split by an ANSI escape", () => {
    expect(safeMessage(`got abcd${ESC}[31mefgh-1234${ESC}[0m!`, { secrets: ["abcdefgh-1234"] })).toBe("got [REDACTED]!");
    expect(safeMessage(`x abcd${ESC}]8;;https://e.x${ESC}\\efgh-1234 y`, { secrets: ["abcdefgh-1234"] })).toBe("x [REDACTED] y");
  });

  it("redacts a configured secret that itself holds control characters, in raw and in cleaned form", () => {
    const s = "abc\u0001defgh\u0007ij";
    expect(safeMessage(`value ${s} end`, { secrets: [s] })).toBe("value [REDACTED] end");
    // The same secret, with an escape inserted into it, is only recognisable once both are cleaned.
    expect(safeMessage(`value abc\u0001de${ESC}[1mfgh\u0007ij end`, { secrets: [s] })).toBe("value [REDACTED] end");
  });

  it("redacts a token an escape would take the first letter of, or a removed control character would glue to a word", () => {
    expect(safeMessage(`x${ESC}[Bearer abc123def456ghi789`)).not.toContain("abc123def456ghi789");
    expect(safeMessage(`key${ESC}AKIAIOSFODNN7EXAMPLE`)).not.toContain("IOSFODNN7EXAMPLE");
    expect(safeMessage("task\u0000sk-abcdefghijklmnopqrstuv")).toBe("task[REDACTED]");
  });

  it("cuts a 2 MB message before anything else and still counts all of it", () => {
    const clock = stopwatch();
    const out = safeMessage("x".repeat(2_000_000));
    clock.within(3000, "cutting a 2 MB message (CPU time)", clock.cpu());
    expect(out).toBe(`${"x".repeat(1000)}… [about 1999000 more characters cut]`);
  });

  it("redacts a configured secret read with its trailing newline", () => {
    expect(safeMessage("401 for key abc123def456 on /v1", { secrets: ["abc123def456\n"] })).toBe("401 for key [REDACTED] on /v1");
  });
});

describe("handleError", () => {
  it("labels a protocol error: MCP protocol error (invalid_params): …", () => {
    expect(handleError(new McpError(-32602, "bad date"))).toBe("MCP protocol error (invalid_params): bad date");
  });

  it("labels the other kinds", () => {
    expect(handleError(err("service_unavailable", "down"))).toBe("MCP transport error (service_unavailable): down");
    expect(handleError(err("tool_error", "quota"))).toBe("Tool execution failed (tool_error): quota");
    expect(handleError(err("circuit_open", "open"))).toBe("MCP client error (circuit_open): open");
  });

  it("cleans and redacts like the model line", () => {
    const out = handleError(new Error(`${ESC}[31mAuthorization: Bearer abc123def456ghi789${ESC}[0m`), { secrets: [] });
    expect(out).toBe("MCP client error (unknown): Authorization: Bearer [REDACTED]");
  });
});

describe("handleResponseError", () => {
  it("reads an isError result: Tool execution failed: …", () => {
    const result = { isError: true, content: [{ type: "text", text: "quota exceeded" }] };
    expect(handleResponseError(result)).toBe("Tool execution failed: quota exceeded");
  });

  it("summarises non-text blocks instead of dropping them", () => {
    const result = {
      isError: true,
      content: [
        { type: "text", text: "render failed" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "resource_link", uri: "file:///log.txt", name: "log" },
      ],
    };
    expect(handleResponseError(result)).toBe("Tool execution failed: render failed\n[image image/png, 3 bytes]\n[resource link file:///log.txt (log)]");
  });

  it("still says it failed when the error has no text at all", () => {
    expect(handleResponseError({ isError: true, content: [] })).toBe("Tool execution failed: The tool reported an error without a message.");
  });

  it("says so when the result is not an error", () => {
    expect(handleResponseError({ content: [{ type: "text", text: "fine" }] })).toBe("Tool execution failed: the result was not marked as an error.");
  });

  it("does not throw on a malformed error result", () => {
    expect(handleResponseError({ isError: true, content: "not an array" })).toBe(
      "Tool execution failed: The server sent a malformed error result: its content is not a list of blocks.",
    );
  });

  it("redacts secrets in the tool's text", () => {
    const result = { isError: true, content: [{ type: "text", text: "bad key sk-proj-abcdefghijklmnopqrstuvwx" }] };
    expect(handleResponseError(result)).toBe(`Tool execution failed: bad key ${REDACTED}`);
  });
});

describe("wrapToolError", () => {
  it("reads Tool 'search' failed (<reason>): <message>", () => {
    expect(wrapToolError(new McpError(-32602, "bad date"), "search")).toBe("Tool 'search' failed (invalid_params): bad date");
  });

  it("echoes the arguments with secret-named values redacted at any depth", () => {
    const args = { query: "cats", apiKey: "k-123456789", options: { headers: { Authorization: "Bearer abc" }, limit: 5 } };
    const out = wrapToolError(new Error("boom"), "search", args);
    expect(out).toBe(
      'Tool \'search\' failed (unknown): boom Arguments: {"query":"cats","apiKey":"[REDACTED]","options":{"headers":{"Authorization":"[REDACTED]"},"limit":5}}',
    );
  });

  it("never echoes a secret the arguments carry in their text, or a configured secret", () => {
    const args = { note: "use sk-ant-api03-abcdefghijklmnopqrstuv please", url: "https://bob:hunter22@db.example.com/x", other: "header-VALUE-42" };
    const out = wrapToolError(new Error("boom"), "search", args, { secrets: ["header-VALUE-42"] });
    for (const s of ["sk-ant-api03", "hunter22", "header-VALUE-42"]) expect(out).not.toContain(s);
    expect(out).toContain('"url":"https://[REDACTED]@db.example.com/x"');
  });

  it("does not change the arguments it echoes", () => {
    const args = { password: "hunter22", nested: { token: "t-0123456789" } };
    const copy = structuredClone(args);
    wrapToolError(new Error("boom"), "search", args);
    expect(args).toEqual(copy);
  });

  it("survives arguments that cannot be serialized", () => {
    // A BigInt reads as its digits; a toJSON that throws leaves nothing to show.
    expect(wrapToolError(new Error("boom"), "search", { n: 1n })).toBe('Tool \'search\' failed (unknown): boom Arguments: {"n":"1"}');
    const throwing = { toJSON: () => { throw new Error("no"); } };
    expect(wrapToolError(new Error("boom"), "search", throwing)).toBe("Tool 'search' failed (unknown): boom Arguments: [unserializable arguments]");
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    expect(wrapToolError(new Error("boom"), "search", circular)).toBe('Tool \'search\' failed (unknown): boom Arguments: {"a":1,"self":"[Circular]"}');
  });

  it("cuts long arguments to at most 500 characters", () => {
    const out = wrapToolError(new Error("boom"), "search", { text: "z".repeat(5000) });
    expect(out).toMatch(/ Arguments: \{"text":"z{491}… \[4511 more characters cut\]$/);
  });
});

describe("toSafeJSON", () => {
  it("gives the artifact a cleaned, redacted message and redacted data, and leaves the error alone", () => {
    const data = { stderr: "token=abc123", exitCode: 1, auth: { user: "bob" } };
    const e = err("connection_closed", `${ESC}[31mclosed: Bearer abc123def456ghi789${ESC}[0m`, { data, cause: new Error("raw") });
    const json = toSafeJSON(e);
    expect(json.message).toBe("closed: Bearer [REDACTED]");
    expect(json.data).toEqual({ stderr: "token=[REDACTED]", exitCode: 1, auth: REDACTED });
    expect(json).not.toHaveProperty("cause");
    expect(e.data).toEqual({ stderr: "token=abc123", exitCode: 1, auth: { user: "bob" } });
    expect(e.message).toContain("Bearer abc123def456ghi789");
    expect({ ...json, message: e.message, data: e.data }).toEqual(e.toJSON());
  });
});

describe("McpToolError.toJSON", () => {
  const full = new McpToolError({
    kind: "protocol",
    reason: "rate_limited",
    transient: true,
    outcome: "not_sent",
    code: 429,
    status: 429,
    retryAfterMs: 1500,
    toolName: "search",
    serverName: "web",
    attempts: 3,
    data: { retryAfter: 1.5, nested: [1, "two"] },
    message: "slow down",
    cause: new Error("the original"),
  });

  it("carries every field and no cause", () => {
    expect(full.toJSON()).toEqual({
      name: "McpToolError",
      message: "slow down",
      kind: "protocol",
      reason: "rate_limited",
      transient: true,
      outcome: "not_sent",
      code: 429,
      status: 429,
      retryAfterMs: 1500,
      toolName: "search",
      serverName: "web",
      attempts: 3,
      data: { retryAfter: 1.5, nested: [1, "two"] },
    });
    expect(Object.keys(full.toJSON())).not.toContain("cause");
  });

  it("round-trips through JSON and back into an equal error", () => {
    const parsed = JSON.parse(JSON.stringify(full)) as ReturnType<McpToolError["toJSON"]>;
    expect(parsed).toEqual(full.toJSON());
    expect(new McpToolError(parsed).toJSON()).toEqual(full.toJSON());
  });

  it("leaves out the optional fields an error does not have", () => {
    expect(McpToolError.of("tool_error", "x").toJSON()).toEqual({
      name: "McpToolError",
      message: "x",
      kind: "domain",
      reason: "tool_error",
      transient: false,
      outcome: "executed",
      attempts: 1,
    });
  });
});

describe("normalize and the ErrorHandler facade", () => {
  it("passes an McpToolError through unchanged: the same instance", () => {
    const e = err("tool_error", "x");
    expect(normalize(e)).toBe(e);
    expect(normalize(e, { toolName: "other", attempts: 5, timedOut: true })).toBe(e);
    expect(ErrorHandler.normalize(e)).toBe(e);
  });

  it("has members that are the named exports", () => {
    const named = api as unknown as Record<string, unknown>;
    const members = Object.entries(ErrorHandler);
    expect(members.map(([k]) => k).sort()).toEqual(["fromResult", "handleError", "handleResponseError", "isSafeToRetry", "normalize", "shouldRetry", "toModelText", "wrapToolError"]);
    for (const [name, fn] of members) expect(fn, name).toBe(named[name]);
    expect(api.ErrorHandler).toBe(ErrorHandler);
  });
});
