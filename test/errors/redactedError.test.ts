/**
 * The error the library hands out is redacted all the way down: no `cause` holding the raw
 * original, in what `util.inspect` prints (with or without hidden properties), in JSON and in a
 * structured clone. The original stays reachable through `unredacted()` only. And an
 * `McpToolError` is recognised by its brand, so a second copy of the class (another build,
 * another installed version) is one of ours too.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { mcpRetryOn } from "../../src/agents.js";
import { isMcpToolError, isServerFailure, McpToolError } from "../../src/errors/McpToolError.js";
import { normalize } from "../../src/errors/normalize.js";
import { redactError, toModelReply } from "../../src/errors/text.js";

const SECRET = "hunter2-db-pass-0xC0FFEE";

/** Everything a person or a program may see of an error, as text. */
function surfaces(error: unknown): string[] {
  return [
    inspect(error),
    inspect(error, { showHidden: false, depth: 10 }),
    inspect(error, { showHidden: true, depth: 10 }),
    inspect(error, { showHidden: true, depth: Infinity, getters: true }),
    inspect({ event: { type: "error", error } }, { depth: 10 }),
    JSON.stringify(error),
    JSON.stringify(structuredClone(error)),
    inspect(structuredClone(error), { showHidden: true, depth: 10 }),
    String(error),
    String((error as Error).stack),
  ];
}

function leaky(): McpToolError {
  const cause = Object.assign(new Error(`spawn failed: DB_PASS=${SECRET}`), { env: { DB_PASS: SECRET } });
  return McpToolError.of("connection_closed", `The server process exited with code 1. stderr: DB_PASS=${SECRET}\n    at fake (${SECRET}:1:1)`, {
    cause,
    serverName: "db",
    data: { exitCode: 1, stderr: `DB_PASS=${SECRET}`, nested: { token: SECRET } },
  });
}

describe("a redacted error", () => {
  it("shows the secret nowhere: not in util.inspect (showHidden or not), JSON, a clone or its stack", () => {
    const raw = leaky();
    // The raw error does show it (its cause), which is why it must not leave the library.
    expect(inspect(raw, { depth: 10 })).toContain(SECRET);
    const safe = redactError(raw, { secrets: [SECRET] });
    for (const text of surfaces(safe)) expect(text).not.toContain(SECRET);
    expect(safe.cause).toBeUndefined();
    expect("cause" in safe).toBe(false);
    expect(Object.keys(safe)).not.toContain("cause");
    expect(safe).toMatchObject({ reason: "connection_closed", serverName: "db", data: { exitCode: 1, stderr: "DB_PASS=[REDACTED]", nested: { token: "[REDACTED]" } } });
  });

  it("gives the original, with its raw message, data and cause, only through unredacted()", () => {
    const raw = leaky();
    const safe = redactError(raw, { secrets: [SECRET] });
    expect(safe.unredacted()).toBe(raw);
    expect(safe.unredacted().cause).toBe(raw.cause);
    expect(raw.unredacted()).toBe(raw);
    // Not a property: nothing enumerates it, whatever the depth.
    expect(Object.getOwnPropertyNames(safe).concat(Object.getOwnPropertySymbols(safe).map(String)).join(" ")).not.toMatch(/unredacted|original|raw/i);
    // Redacting twice still leads back to the first original.
    expect(redactError(safe, { secrets: [SECRET] }).unredacted()).toBe(raw);
  });

  it("stays a redacted value through with(): context reaches the original, a new message only the face", () => {
    const raw = leaky();
    const safe = redactError(raw, { secrets: [SECRET] });
    const later = safe.with({ toolName: "query", attempts: 3, message: `${safe.message} (again)` });
    expect(later).not.toBe(safe);
    expect([safe.toolName, safe.attempts]).toEqual([undefined, 1]);
    expect(later).toMatchObject({ toolName: "query", attempts: 3 });
    expect(later.cause).toBeUndefined();
    for (const text of surfaces(later)) expect(text).not.toContain(SECRET);
    expect(later.unredacted()).toMatchObject({ toolName: "query", attempts: 3, message: raw.message });
    expect(later.unredacted().cause).toBe(raw.cause);
    expect(later.stack!.split("\n")[0]).toBe(`McpToolError: ${later.message}`);
  });

  it("reads the same to the model as the error it came from", () => {
    const raw = leaky();
    const options = { secrets: [SECRET] };
    expect(toModelReply(redactError(raw, options), options).text).toBe(toModelReply(raw, options).text);
  });
});

describe("one error class across copies", () => {
  it("recognises an McpToolError made by another copy of the class, as instanceof, normalize and retry do", async () => {
    // The query makes Vite load the module again: a second class, as a second build would have.
    // @ts-expect-error TypeScript knows no module by a path with a query.
    const other = (await import("../../src/errors/McpToolError.js?another-copy")) as typeof import("../../src/errors/McpToolError.js");
    expect(other.McpToolError).not.toBe(McpToolError);
    const foreign = other.McpToolError.of("connection_refused", "connect ECONNREFUSED 127.0.0.1:1");
    expect(Object.getPrototypeOf(foreign)).not.toBe(McpToolError.prototype);
    expect(foreign instanceof McpToolError).toBe(true);
    expect(isMcpToolError(foreign)).toBe(true);
    expect(normalize(foreign)).toBe(foreign);
    expect(isServerFailure(foreign)).toBe(true);
    expect(mcpRetryOn(foreign)).toBe(true);
    // And the other way round.
    expect(McpToolError.of("tool_error", "x") instanceof other.McpToolError).toBe(true);
    // A redaction made by one copy of an error made by the other still leads back to it.
    expect(redactError(foreign).unredacted()).toBe(foreign);
  });

  it("is not fooled by look-alikes: a plain object with the fields, an Error, a prototype without a constructor run", () => {
    const lookalike = { name: "McpToolError", kind: "transport", reason: "connection_refused", transient: true, outcome: "not_sent", attempts: 1, message: "x" };
    expect(isMcpToolError(lookalike)).toBe(false);
    expect(lookalike instanceof McpToolError).toBe(false);
    expect(isMcpToolError(new Error("x"))).toBe(false);
    expect(isMcpToolError(Object.create(McpToolError.prototype))).toBe(false);
    const trap = new Proxy({}, { getOwnPropertyDescriptor: () => { throw new Error("trap"); } });
    expect(isMcpToolError(trap)).toBe(false);
    expect(normalize(trap).reason).toBe("unknown");
  });

  it("keeps the ordinary instanceof for a subclass", () => {
    class Special extends McpToolError {}
    const special = new Special({ kind: "client", reason: "unknown", transient: false, outcome: "unknown", message: "x" });
    expect(special instanceof Special).toBe(true);
    expect(special instanceof McpToolError).toBe(true);
    expect(McpToolError.of("unknown", "y") instanceof Special).toBe(false);
  });
});
