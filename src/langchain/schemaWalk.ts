import { dereference, type Schema } from "@cfworker/json-schema";

/** Every schema of a tool's input by its absolute URI, as @cfworker/json-schema resolves `$ref`s. */
export type SchemaLookup = Record<string, Schema | boolean>;

/**
 * The lookup of a tool's input schema: the same table cfworker validates with, so a `$ref`
 * means here what it means to the validator. `undefined` for a schema it cannot read (two
 * subschemas claiming one `$id`), which then only the validator judges.
 */
export function lookupOf(schema: Schema): SchemaLookup | undefined {
  try {
    return dereference(schema);
  } catch {
    return undefined;
  }
}

/** The schema a `$ref` points to, followed through chains of refs; `undefined` where it leads nowhere known. */
export function resolve(node: Schema | boolean | undefined, lookup: SchemaLookup): Schema | boolean | undefined {
  // A chain longer than this is a loop (`a` → `b` → `a`): nothing it says can be used.
  for (let hops = 0; hops < 16; hops++) {
    if (typeof node !== "object" || node === null || typeof node.$ref !== "string") return node;
    node = lookup[node.__absolute_ref__ ?? node.$ref];
  }
  return undefined;
}

/**
 * The schema node at a validator's `keywordLocation` (`#/properties/a/$ref/items`): each `$ref`
 * segment steps into the schema the ref names, as the validator did.
 */
export function schemaAt(root: Schema, location: string, lookup: SchemaLookup): unknown {
  let node: unknown = root;
  for (const segment of segmentsOf(location)) {
    if (typeof node !== "object" || node === null) return undefined;
    const record = node as Schema;
    if (segment === "$ref") node = resolve({ $ref: record.$ref, __absolute_ref__: record.__absolute_ref__ } as Schema, lookup);
    else node = (record as Record<string, unknown>)[decodeSegment(segment)];
  }
  return node;
}

/** One segment of a pointer as cfworker encodes it: URI-encoded, then `~1` for `/` and `~0` for `~`. */
function decodeSegment(segment: string): string {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // Not percent-encoded after all: the segment is read as written.
  }
  return decoded.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** The segments of an `instanceLocation` (`#/edits/0/oldText`), decoded. */
export function instancePath(location: string): string[] {
  return segmentsOf(location).map(decodeSegment);
}

/** `#` is the root; `#/` is the property named "" (a key may be empty). */
function segmentsOf(location: string): string[] {
  return location === "#" || location === "" ? [] : location.replace(/^#?\//, "").split("/");
}
