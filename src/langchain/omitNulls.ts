import { validate, type Schema } from "@cfworker/json-schema";
import { resolve, type SchemaLookup } from "./schemaWalk.js";

/**
 * Nesting followed at most. JSON from a model is shallow; a hostile 100,000-deep value is left as
 * it is below this, for the validator to judge.
 */
const MAX_DEPTH = 64;

const DROP = Symbol("drop");

/**
 * The arguments as the client should send them (SEP-2243: clients omit null-valued optional
 * arguments). A model in strict function-calling mode sends `null` for every optional field it
 * does not use; a property whose value is `null` is left out when it is optional (not in
 * `required`) and its schema does not accept null (judged by the validator itself, so a
 * `type: ["string", "null"]`, a nullable `anyOf`, an enum holding null or `const: null` keep
 * it). Nested objects are treated the same wherever the schema describes them: the properties
 * of an object property, the items of an array, the one non-null branch of a nullable
 * `anyOf`/`oneOf`, through `$ref` and `allOf`. Anything the schema does not describe stays as it
 * is. Returns `args` itself when nothing is left out, a copy otherwise.
 */
export function omitNulls(args: unknown, schema: Schema, lookup: SchemaLookup): unknown {
  // Most calls carry no null at all: one scan, no schema work.
  if (!containsNull(args, 0)) return args;
  return walk(args, [schema], lookup, 0);
}

function containsNull(value: unknown, depth: number): boolean {
  if (value === null) return true;
  if (typeof value !== "object" || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (containsNull(item, depth + 1)) return true;
    return false;
  }
  for (const item of Object.values(value)) if (containsNull(item, depth + 1)) return true;
  return false;
}

type Part = Schema | boolean;

// Loops rather than flatMap and friends: this runs on a call's path, and allocates only for
// what it leaves out.
function walk(value: unknown, parts: readonly Part[], lookup: SchemaLookup, depth: number): unknown {
  if (typeof value !== "object" || value === null || depth > MAX_DEPTH) return value;
  const nodes = describing(parts, lookup);
  if (nodes.length === 0) return value;
  if (Array.isArray(value)) return walkItems(value, nodes, lookup, depth);
  return walkObject(value as Record<string, unknown>, nodes, lookup, depth);
}

function walkObject(object: Record<string, unknown>, nodes: readonly Schema[], lookup: SchemaLookup, depth: number): Record<string, unknown> {
  let changes: Map<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (value === null) {
      // Every part must accept null for the whole to accept it.
      if (!isRequired(nodes, key) && nodes.some((n) => rejectsNull(propertyOf(n, key), lookup))) (changes ??= new Map()).set(key, DROP);
      continue;
    }
    if (typeof value !== "object") continue;
    const parts: Part[] = [];
    for (const node of nodes) {
      const part = propertyOf(node, key);
      if (part !== undefined) parts.push(part);
    }
    if (parts.length === 0) continue;
    const next = walk(value, parts, lookup, depth + 1);
    if (next !== value) (changes ??= new Map()).set(key, next);
  }
  if (!changes) return object;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    const value = changes.has(key) ? changes.get(key) : object[key];
    // Defined, not assigned: a `__proto__` key stays a key and sets no prototype.
    if (value !== DROP) Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

function walkItems(items: readonly unknown[], nodes: readonly Schema[], lookup: SchemaLookup, depth: number): unknown[] {
  // One schema for every item; tuple forms (an array of schemas) are left to the validator.
  const parts: Part[] = [];
  for (const node of nodes) if (node.items !== undefined && !Array.isArray(node.items)) parts.push(node.items);
  if (parts.length === 0) return items as unknown[];
  let copy: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const next = walk(item, parts, lookup, depth + 1);
    if (next === item) continue;
    copy ??= [...items];
    copy[i] = next;
  }
  return copy ?? (items as unknown[]);
}

function propertyOf(node: Schema, key: string): Part | undefined {
  const properties: unknown = node.properties;
  return isRecord(properties) && Object.hasOwn(properties, key) ? (properties[key] as Part) : undefined;
}

function isRequired(nodes: readonly Schema[], key: string): boolean {
  for (const node of nodes) if (Array.isArray(node.required) && node.required.includes(key)) return true;
  return false;
}

/**
 * The schema nodes that together describe a value: each part, what its `$ref` names, its
 * `allOf` branches, and the one branch of an `anyOf`/`oneOf` that is not null-only.
 */
function describing(parts: readonly Part[], lookup: SchemaLookup): Schema[] {
  const nodes: Schema[] = [];
  const visit = (part: Part | undefined, hops: number): void => {
    if (typeof part !== "object" || part === null || nodes.includes(part) || hops > 16) return;
    nodes.push(part);
    if (part.$ref !== undefined) visit(resolve(part, lookup), hops + 1);
    if (Array.isArray(part.allOf)) for (const branch of part.allOf) visit(branch, hops + 1);
    for (const branches of [part.anyOf, part.oneOf]) {
      if (!Array.isArray(branches)) continue;
      const real = branches.filter((b) => !nullOnly(resolve(b, lookup)));
      if (real.length === 1) visit(real[0], hops + 1);
    }
  };
  for (const part of parts) visit(part, 0);
  return nodes;
}

function nullOnly(node: Part | undefined): boolean {
  if (typeof node !== "object" || node === null) return false;
  const { type } = node;
  return type === "null" || (Array.isArray(type) && type.length === 1 && type[0] === "null") || node.const === null || (Array.isArray(node.enum) && node.enum.length === 1 && node.enum[0] === null);
}

/** Each property schema's verdict on null, asked once. */
const nullVerdicts = new WeakMap<object, boolean>();

/** Does this schema refuse `null`? Asked of the validator, so its answer is the one that counts. */
function rejectsNull(part: Part | undefined, lookup: SchemaLookup): boolean {
  if (part === undefined) return false;
  if (typeof part === "boolean") return !part;
  let verdict = nullVerdicts.get(part);
  if (verdict === undefined) {
    try {
      verdict = validate(null, part, "2019-09", lookup, true).valid;
    } catch {
      // A `$ref` the validator cannot follow: keep the null, and let the check report the ref.
      verdict = true;
    }
    nullVerdicts.set(part, verdict);
  }
  return !verdict;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
