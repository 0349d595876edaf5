import { validate, type Schema } from "@cfworker/json-schema";
import { DynamicStructuredTool, ToolInputParsingException } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { ArgumentCheck } from "../../src/langchain/argumentCheck.js";
import { argumentsLine } from "../../src/langchain/argumentText.js";
import { FORM_ARGS, FORM_SHAPE } from "../../bench/server/form.js";
import { z } from "zod";

// The schema a v1 SDK server lists for the bench's 12-field tool: zod-to-json-schema output,
// which names draft-07 in `$schema`.
const formSchema = z.toJSONSchema(z.object(FORM_SHAPE), { target: "draft-7" }) as Record<string, unknown>;

/** Does LangChain's own check (cfworker) accept these arguments? */
function langChainAccepts(schema: object, args: unknown): boolean {
  return validate(args, schema as never).valid;
}

const PRIORITIES = `"low", "medium", "high", "urgent"`;

describe("ArgumentCheck", () => {
  it("interprets a tool's first calls and compiles it once it is in steady use, with the same verdicts", () => {
    const check = new ArgumentCheck(formSchema, 2);
    const bad = { ...FORM_ARGS, priority: "whenever" };
    const verdicts = [FORM_ARGS, bad, FORM_ARGS, bad, FORM_ARGS].map((args) => check.problems(args));
    const said = `'priority' must be one of ${PRIORITIES}.`;
    expect(verdicts).toEqual([undefined, said, undefined, said, undefined]);
    expect((check as unknown as { compiled: unknown }).compiled).toBeTypeOf("function");
  });

  it("accepts good arguments of a draft-07 schema with formats, enums, a nested object and arrays", () => {
    expect(formSchema.$schema).toContain("draft-07");
    expect(new ArgumentCheck(formSchema, 0).problems(FORM_ARGS)).toBeUndefined();
  });

  it.each([
    ["a bad format", { ...FORM_ARGS, reporterEmail: "not an email" }, "'reporterEmail' must be a valid email."],
    ["a wrong enum value", { ...FORM_ARGS, priority: "whenever" }, `'priority' must be one of ${PRIORITIES}.`],
    ["a nested field of the wrong type", { ...FORM_ARGS, assignee: { ...FORM_ARGS.assignee, onCall: "yes" } }, "'assignee.onCall' must be a boolean (got string)."],
    ["an array item's field", { ...FORM_ARGS, attachments: [{ name: "a", url: "https://x.example", sizeBytes: -1 }] }, "'attachments[0].sizeBytes' must be at least 0."],
    ["bounds", { ...FORM_ARGS, title: "x", tags: Array.from({ length: 11 }, () => "t") }, "'title' must be at least 3 characters long; 'tags' must have at most 10 items."],
    ["input that is not an object", "not an object", "the arguments must be an object (got string)."],
  ])("rejects %s in one line naming the field and what it expects, where LangChain's check rejects too", (_what, bad, said) => {
    for (const check of [new ArgumentCheck(formSchema, 0), new ArgumentCheck(formSchema, 100)]) {
      expect(langChainAccepts(formSchema, bad)).toBe(false);
      expect(check.problems(bad)).toBe(said);
    }
  });

  it("names every bad field at once: wrong types and each missing required one", () => {
    const said = new ArgumentCheck(formSchema, 0).problems({ title: 42, notify: true });
    expect(said).toBe(
      "'title' must be a string (got number); 'description' is required; 'reporterEmail' is required; 'requestId' is required; " +
        "'priority' is required; 'category' is required; 'tags' is required; 'assignee' is required.",
    );
    expect(said).not.toContain("\n");
  });

  it("names the types of a nullable field together, and an unknown property of a closed object", () => {
    const schema: Schema = {
      type: "object",
      properties: { path: { type: "string" }, depth: { anyOf: [{ type: "integer" }, { type: "null" }] } },
      required: ["path", "depth"],
      additionalProperties: false,
    };
    const check = new ArgumentCheck(schema, 0);
    expect(check.problems({ path: 1 })).toBe("'path' must be a string (got number); 'depth' is required.");
    expect(check.problems({ path: "/", depth: "deep" })).toBe("'depth' must be an integer or null (got string).");
    expect(check.problems({ path: "/", depth: 1, extra: true })).toBe("'extra' is not allowed.");
  });

  it("judges formats as cfworker does, in both directions", () => {
    const email = new ArgumentCheck({ type: "string", format: "email" }, 0);
    const uuid = new ArgumentCheck({ type: "string", format: "uuid" }, 0);
    // Ajv's own formats refuse the first and accept the second; cfworker's are the rule here.
    expect(email.problems("a@b")).toBeUndefined();
    expect(langChainAccepts({ type: "string", format: "uuid" }, "urn:uuid:00000000-0000-0000-0000-000000000000")).toBe(false);
    expect(uuid.problems("urn:uuid:00000000-0000-0000-0000-000000000000")).toBe("the arguments must be a valid uuid.");
  });

  it("checks with cfworker alone a schema Ajv cannot compile", () => {
    const schema: Schema = { type: "object", properties: { a: { type: "string" }, b: { $ref: "other.json#/thing" } }, required: ["a"] };
    const check = new ArgumentCheck(schema, 0);
    expect(check.problems({ a: "x" })).toBeUndefined();
    expect(check.problems({ a: 1 })).toBe("'a' must be a string (got number).");
  });
});

describe("ArgumentCheck.prepare: null for an optional argument is left out (SEP-2243)", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      path: { type: "string" },
      head: { type: "number" },
      label: { type: ["string", "null"] },
      mode: { anyOf: [{ type: "string" }, { type: "null" }] },
      level: { enum: ["a", null] },
      nothing: { const: null },
      anything: {},
      options: { $ref: "#/$defs/options" },
      edits: { type: "array", items: { type: "object", properties: { text: { type: "string" }, all: { type: "boolean" } }, required: ["text"] } },
      owner: { anyOf: [{ $ref: "#/$defs/options" }, { type: "null" }] },
    },
    required: ["path"],
    $defs: { options: { type: "object", properties: { append: { type: "boolean" }, encoding: { type: "string" } } } },
  };

  it("leaves out nulls the schema refuses, keeps those it accepts, and keeps a required field's null for the check to refuse", () => {
    const check = new ArgumentCheck(schema, 0);
    const args = { path: null, head: null, label: null, mode: null, level: null, nothing: null, anything: null, unknown: null };
    const sent = check.prepare(args);
    expect(sent).toEqual({ path: null, label: null, mode: null, level: null, nothing: null, anything: null, unknown: null });
    expect(check.problems(sent)).toBe("'path' must be a string (got null).");
  });

  it("follows nested objects, $refs, array items and a nullable anyOf's object branch", () => {
    const check = new ArgumentCheck(schema, 0);
    const args = {
      path: "/",
      options: { append: null, encoding: "utf8" },
      edits: [{ text: "a", all: null }, { text: "b" }],
      owner: { encoding: null },
    };
    const sent = check.prepare(args);
    expect(sent).toEqual({ path: "/", options: { encoding: "utf8" }, edits: [{ text: "a" }, { text: "b" }], owner: {} });
    expect(check.problems(sent)).toBeUndefined();
    // The caller's object is not changed; a copy is sent.
    expect(args.options.append).toBeNull();
  });

  it("returns the same object when there is nothing to leave out", () => {
    const check = new ArgumentCheck(schema, 0);
    const args = { path: "/", head: 3, label: null };
    expect(check.prepare(args)).toBe(args);
  });

  it("keeps a __proto__ key a key when it copies", () => {
    const check = new ArgumentCheck(schema, 0);
    const args = JSON.parse('{"path": "/", "head": null, "__proto__": {"polluted": true}}') as Record<string, unknown>;
    const sent = check.prepare(args) as Record<string, unknown>;
    expect(Object.getPrototypeOf(sent)).toBe(Object.prototype);
    expect(Object.hasOwn(sent, "__proto__")).toBe(true);
    expect(Object.hasOwn(sent, "head")).toBe(false);
  });
});

describe("argumentsLine: LangChain's parsing exception as one line", () => {
  it("reads a zod schema's issues field by field (a wrapped adapter tool)", async () => {
    const tool = new DynamicStructuredTool({ name: "t", description: "t", schema: z.object({ text: z.string(), n: z.number() }), func: async () => "ok", verboseParsingErrors: true });
    const error = await tool.invoke({ text: 5 } as never).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(ToolInputParsingException);
    expect(argumentsLine(error!.message)).toBe("'text' must be a string (got number); 'n' is required.");
  });
});
