import type { OutputUnit, Schema } from "@cfworker/json-schema";
import { instancePath, schemaAt, type SchemaLookup } from "./schemaWalk.js";

/** Problems named in one message at most; the model fixes these first and hears of the rest next. */
const MAX_PROBLEMS = 8;

/** Keywords whose error only says "something below failed"; the errors below it say what. */
const WRAPPERS = new Set([
  "$ref",
  "$recursiveRef",
  "allOf",
  "if",
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "dependentSchemas",
  "prefixItems",
  "items",
  "additionalItems",
  "unevaluatedItems",
]);

/**
 * The validator's errors as one line a model can act on: each bad field and what it expects,
 * e.g. `'path' must be a string (got number); 'depth' is required.` A value the model sent is
 * never repeated (it may be a secret), only its type.
 */
export function describeProblems(errors: readonly OutputUnit[], args: unknown, schema: Schema, lookup: SchemaLookup | undefined): string {
  return argumentProblems(errors, args, schema, lookup).line;
}

/** One bad field, as the error's `data.fields` lists it for code (the model reads the line). */
export interface FieldProblem {
  /** The field's path, e.g. `path` or `edits[0].oldText`; `""` for the arguments as a whole. */
  field: string;
  /** The schema keyword it failed (`type`, `required`, `enum`, …). */
  keyword: string;
  /** What the model reads of it, e.g. `'path' must be a string (got number)`. */
  problem: string;
  /** The JSON type of what was sent for the field (`missing` when nothing was): never the value, which may be a secret. */
  received: string;
}

/** The line the model reads, and each problem in it for code. */
export function argumentProblems(errors: readonly OutputUnit[], args: unknown, schema: Schema, lookup: SchemaLookup | undefined): { line: string; fields: FieldProblem[] } {
  const problems = explain(errors, args, schema, lookup);
  // A format says what a pattern beside it says (zod writes both for an email), in words.
  const formatted = new Set(problems.filter((p) => p.keyword === "format").map((p) => p.field));
  const kept = problems.filter((p) => !(p.keyword === "pattern" && formatted.has(p.field)));
  // What is wrong with the fields given first, then what is missing: the validator checks
  // `required` first, but the model reads a wrong value as the bigger news.
  const ordered = [...kept.filter((p) => p.keyword !== "required"), ...kept.filter((p) => p.keyword === "required")];
  const phrases = [...new Set(ordered.map((p) => p.text))];
  const said = new Set<string>();
  const fields = ordered.filter((p) => !said.has(p.text) && said.add(p.text)).map(fieldProblem);
  if (phrases.length === 0) return { line: "the arguments do not match the tool's input schema.", fields };
  const shown = phrases.slice(0, MAX_PROBLEMS);
  const more = phrases.length - shown.length;
  return { line: `${shown.join("; ")}${more > 0 ? `; and ${more} more problem${more === 1 ? "" : "s"}` : ""}.`, fields };
}

function fieldProblem(p: Problem): FieldProblem {
  return { field: p.field === "the arguments" ? "" : p.field.slice(1, -1), keyword: p.keyword, problem: p.text, received: p.received };
}

/** `{ field: type received }` for each bad field: what `data.received` of an `invalid_arguments` error says. */
export function receivedByField(fields: readonly FieldProblem[]): Record<string, string> {
  return Object.fromEntries(fields.map((f) => [f.field, f.received]));
}

/** One problem: the keyword that found it, the field it is about, what was sent there (its type), and what the model reads. */
interface Problem {
  keyword: string;
  field: string;
  received: string;
  text: string;
}

function explain(errors: readonly OutputUnit[], args: unknown, schema: Schema, lookup: SchemaLookup | undefined): Problem[] {
  const phrases: Problem[] = [];
  for (let i = 0; i < errors.length; i++) {
    const error = errors[i]!;
    if (error.keyword === "anyOf" || error.keyword === "oneOf") {
      // The branches' errors follow the alternative's own, under its location.
      const inside = `${error.keywordLocation}/`;
      let end = i + 1;
      while (end < errors.length && errors[end]!.keywordLocation.startsWith(inside)) end++;
      phrases.push(...alternatives(error, errors.slice(i + 1, end), args, schema, lookup));
      i = end - 1;
    } else if (!WRAPPERS.has(error.keyword)) {
      phrases.push(...describe(error, args, schema, lookup));
    }
  }
  return phrases;
}

/**
 * An `anyOf`/`oneOf` nothing matched. Where every branch wanted another type, the types are
 * named together (`must be a string or null`); where exactly one branch had the right type, its
 * own problems are the ones to fix.
 */
function alternatives(error: OutputUnit, inner: readonly OutputUnit[], args: unknown, schema: Schema, lookup: SchemaLookup | undefined): Problem[] {
  const field = fieldOf(error.instanceLocation, args);
  const received = receivedAt(error.instanceLocation, args);
  const problem = (text: string): Problem[] => [{ keyword: error.keyword, field, received, text: `${field} ${text}` }];
  const branchOf = (e: OutputUnit) => e.keywordLocation.slice(error.keywordLocation.length + 1).split("/")[0]!;
  const wrongType = (e: OutputUnit) => e.keyword === "type" && e.instanceLocation === error.instanceLocation;
  const branches = new Map<string, OutputUnit[]>();
  for (const e of inner) branches.set(branchOf(e), [...(branches.get(branchOf(e)) ?? []), e]);
  const node = lookup ? schemaAt(schema, error.keywordLocation, lookup) : undefined;
  const count = Array.isArray(node) ? node.length : branches.size;
  // A oneOf whose failing branches are fewer than its branches failed for matching several.
  if (error.keyword === "oneOf" && branches.size < count) return problem("must match exactly one of its allowed forms, and matches several");
  const close = [...branches.values()].filter((errs) => !errs.some(wrongType));
  if (close.length === 1) return explain(close[0]!, args, schema, lookup);
  const types = [...branches.values()].flatMap((errs) => errs.filter(wrongType).flatMap((e) => expectedTypes(e, schema, lookup)));
  if (close.length === 0 && types.length > 0) return problem(`must be ${orList([...new Set(types)].map(typeName))} (got ${typeOf(valueAt(error.instanceLocation, args))})`);
  return problem("does not match any of its allowed forms");
}

function describe(error: OutputUnit, args: unknown, schema: Schema, lookup: SchemaLookup | undefined): Problem[] {
  const field = fieldOf(error.instanceLocation, args);
  const received = receivedAt(error.instanceLocation, args);
  const problem = (text: string): Problem[] => [{ keyword: error.keyword, field, received, text: `${field} ${text}` }];
  const value = lookup ? schemaAt(schema, error.keywordLocation, lookup) : undefined;
  switch (error.keyword) {
    case "type": {
      const types = expectedTypes(error, schema, lookup);
      if (types.length > 0) return problem(`must be ${orList(types.map(typeName))} (got ${typeOf(valueAt(error.instanceLocation, args))})`);
      break;
    }
    case "required": {
      const instance = valueAt(error.instanceLocation, args);
      if (Array.isArray(value) && typeof instance === "object" && instance !== null) {
        return value
          .filter((key): key is string => typeof key === "string" && !Object.hasOwn(instance, key))
          .map((key) => quote([...instancePath(error.instanceLocation), key], args))
          .map((missing) => ({ keyword: "required", field: missing, received: "missing", text: `${missing} is required` }));
      }
      break;
    }
    case "enum":
      if (Array.isArray(value)) return problem(`must be ${value.length === 1 ? json(value[0]) : `one of ${listOf(value.map(json))}`}`);
      break;
    case "const":
      return problem(`must be ${json(value)}`);
    case "format":
      if (typeof value === "string") return problem(`must be a valid ${value}`);
      break;
    case "pattern":
      if (typeof value === "string") return problem(`must match the pattern ${value.length > 100 ? `${value.slice(0, 97)}...` : value}`);
      break;
    case "false":
      return problem("is not allowed");
  }
  const limit = typeof value === "number" ? LIMITS[error.keyword] : undefined;
  if (limit) return problem(limit(value as number));
  // A keyword rarely met in tool schemas: the validator's own sentence, on the same line.
  return [{ keyword: error.keyword, field, received, text: `${field}: ${error.error.replace(/\.$/, "")}` }];
}

const LIMITS: Record<string, (n: number) => string> = {
  minLength: (n) => `must be at least ${n} character${n === 1 ? "" : "s"} long`,
  maxLength: (n) => `must be at most ${n} character${n === 1 ? "" : "s"} long`,
  minimum: (n) => `must be at least ${n}`,
  maximum: (n) => `must be at most ${n}`,
  exclusiveMinimum: (n) => `must be greater than ${n}`,
  exclusiveMaximum: (n) => `must be less than ${n}`,
  multipleOf: (n) => `must be a multiple of ${n}`,
  minItems: (n) => `must have at least ${n} item${n === 1 ? "" : "s"}`,
  maxItems: (n) => `must have at most ${n} item${n === 1 ? "" : "s"}`,
  minProperties: (n) => `must have at least ${n} propert${n === 1 ? "y" : "ies"}`,
  maxProperties: (n) => `must have at most ${n} propert${n === 1 ? "y" : "ies"}`,
};

function expectedTypes(error: OutputUnit, schema: Schema, lookup: SchemaLookup | undefined): string[] {
  const type = lookup ? schemaAt(schema, error.keywordLocation, lookup) : undefined;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  // Without the schema, the validator's sentence names the types: `Expected "string", "null".`
  const named = /Expected (".*")\.$/.exec(error.error)?.[1];
  return named ? [...named.matchAll(/"([^"]+)"/g)].map((m) => m[1]!) : [];
}

const ARTICLE: Record<string, string> = { string: "a string", number: "a number", integer: "an integer", boolean: "a boolean", object: "an object", array: "an array", null: "null" };
const typeName = (type: string): string => ARTICLE[type] ?? type;

/** The JSON type of a value the model sent, never the value itself. */
export function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** `'path'`, `'edits[0].oldText'`; the whole input is "the arguments". */
function fieldOf(location: string, args: unknown): string {
  const path = instancePath(location);
  return path.length === 0 ? "the arguments" : quote(path, args);
}

function quote(path: readonly string[], args: unknown): string {
  let text = "";
  let node = args;
  for (const segment of path) {
    text += Array.isArray(node) ? `[${segment}]` : text === "" ? segment : `.${segment}`;
    node = typeof node === "object" && node !== null ? (node as Record<string, unknown>)[segment] : undefined;
  }
  return `'${text}'`;
}

/** The JSON type sent at a location, `missing` where nothing was. */
function receivedAt(location: string, args: unknown): string {
  const value = valueAt(location, args);
  return value === undefined ? "missing" : typeOf(value);
}

function valueAt(location: string, args: unknown): unknown {
  let node = args;
  for (const segment of instancePath(location)) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

function json(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function listOf(items: readonly string[]): string {
  return items.length > 10 ? `${items.slice(0, 10).join(", ")}, ...` : items.join(", ");
}

function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

/**
 * The details of LangChain's ToolInputParsingException as one line. Ours are one line already;
 * a zod schema's (a wrapped tool's) are zod's issues as JSON, read here field by field; anything
 * else has its lines joined.
 */
export function argumentsLine(message: string): string {
  const details = detailsOf(message);
  const issues = zodIssues(details);
  if (issues) return `${issues.map(zodPhrase).join("; ")}.`;
  const line = details
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .join("; ");
  return line === "" ? "the arguments do not match the tool's input schema." : /[.!?]$/.test(line) ? line : `${line}.`;
}

/** The details of LangChain's ToolInputParsingException message, without its heading. */
export function detailsOf(message: string): string {
  return message.replace(/^Received tool input did not match expected schema\s*/, "").replace(/^Details:\s*/, "");
}

export interface ZodIssue {
  code?: unknown;
  path?: unknown;
  message?: unknown;
  expected?: unknown;
}

export function zodIssues(details: string): ZodIssue[] | undefined {
  // zod's message is its issues as indented JSON; LangChain appends zod's pretty print after it.
  const found = /^(\[[\s\S]*?\n\])/.exec(details)?.[1];
  if (!found) return undefined;
  try {
    const parsed: unknown = JSON.parse(found);
    return Array.isArray(parsed) && parsed.length > 0 && parsed.every((i) => typeof i === "object" && i !== null && typeof (i as ZodIssue).message === "string") ? (parsed as ZodIssue[]) : undefined;
  } catch {
    return undefined;
  }
}

export function zodPhrase(issue: ZodIssue): string {
  const path = Array.isArray(issue.path) ? issue.path : [];
  const field = path.length === 0 ? "the arguments" : `'${path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("")}'`;
  const message = String(issue.message);
  const got = /received (\w+)/i.exec(message)?.[1];
  if (issue.code === "invalid_type" && typeof issue.expected === "string") {
    if (got === "undefined") return `${field} is required`;
    return `${field} must be ${typeName(issue.expected)}${got ? ` (got ${got})` : ""}`;
  }
  return `${field}: ${message.replace(/\.$/, "")}`;
}
