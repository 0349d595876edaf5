import { validate, type Schema } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { ArgumentCheck } from "../../src/langchain/argumentCheck.js";
import { FORM_ARGS, FORM_SHAPE } from "../../bench/server/form.js";
import { z } from "zod";

// The schema a v1 SDK server lists for the bench's 12-field tool: zod-to-json-schema output,
// which names draft-07 in `$schema`.
const formSchema = z.toJSONSchema(z.object(FORM_SHAPE), { target: "draft-7" }) as Record<string, unknown>;

/** What LangChain's own check says of these arguments, as ToolInputParsingException details. */
function langChainSays(schema: object, args: unknown): string | undefined {
  const result = validate(args, schema as never);
  return result.valid ? undefined : result.errors.map((e) => `${e.keywordLocation}: ${e.error}`).join("\n");
}

describe("ArgumentCheck", () => {
  it("interprets a tool's first calls and compiles it once it is in steady use, with the same verdicts", () => {
    const check = new ArgumentCheck(formSchema, 2);
    const bad = { ...FORM_ARGS, priority: "whenever" };
    const verdicts = [FORM_ARGS, bad, FORM_ARGS, bad, FORM_ARGS].map((args) => check.problems(args));
    expect(verdicts).toEqual([undefined, langChainSays(formSchema, bad), undefined, langChainSays(formSchema, bad), undefined]);
    expect((check as unknown as { compiled: unknown }).compiled).toBeTypeOf("function");
  });

  it("accepts good arguments of a draft-07 schema with formats, enums, a nested object and arrays", () => {
    expect(formSchema.$schema).toContain("draft-07");
    expect(new ArgumentCheck(formSchema, 0).problems(FORM_ARGS)).toBeUndefined();
  });

  it("rejects bad arguments with the lines LangChain's own check gives", () => {
    const check = new ArgumentCheck(formSchema, 0);
    for (const bad of [{ ...FORM_ARGS, reporterEmail: "not an email" }, { ...FORM_ARGS, priority: "whenever" }, { title: "x" }, "not an object"]) {
      const said = check.problems(bad);
      expect(said).toBeDefined();
      expect(said).toBe(langChainSays(formSchema, bad));
    }
  });

  it("judges formats as cfworker does, in both directions", () => {
    const email = new ArgumentCheck({ type: "string", format: "email" }, 0);
    const uuid = new ArgumentCheck({ type: "string", format: "uuid" }, 0);
    // Ajv's own formats refuse the first and accept the second; cfworker's are the rule here.
    expect(email.problems("a@b")).toBeUndefined();
    expect(uuid.problems("urn:uuid:00000000-0000-0000-0000-000000000000")).toBe(langChainSays({ type: "string", format: "uuid" }, "urn:uuid:00000000-0000-0000-0000-000000000000"));
  });

  it("checks with cfworker alone a schema Ajv cannot compile", () => {
    const schema: Schema = { type: "object", properties: { a: { type: "string" }, b: { $ref: "other.json#/thing" } }, required: ["a"] };
    const check = new ArgumentCheck(schema, 0);
    expect(check.problems({ a: "x" })).toBeUndefined();
    expect(check.problems({ a: 1 })).toBe(langChainSays(schema, { a: 1 }));
  });
});
