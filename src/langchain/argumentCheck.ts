import { format, validate, type Schema } from "@cfworker/json-schema";
import { Ajv2019, type ValidateFunction } from "ajv/dist/2019.js";
import { argumentProblems, type FieldProblem } from "./argumentText.js";
import { omitNulls } from "./omitNulls.js";
import { lookupOf, type SchemaLookup } from "./schemaWalk.js";

/**
 * Checks a tool's arguments against its input schema before the call goes out.
 *
 * Two validators, each for what it does best. Ajv compiles the schema to code and then
 * accepts good arguments in a few µs (about 3 µs for a dozen fields with formats, where
 * interpreting the schema takes about 55 µs). Compiling such a schema blocks the event loop
 * for 10 to 40 ms, so only a tool in steady use is compiled: its first calls are checked by
 * interpreting, as LangChain does, and the compile pays for itself within a few hundred calls
 * after. Once compiled, only when Ajv
 * rejects the arguments does @cfworker/json-schema, the validator LangChain itself uses, look
 * again: its verdict stands, and its errors become the one line the model reads, naming each
 * bad field and what it expects (argumentText.ts). Ajv checks formats with cfworker's own functions, so the two
 * agree where they differed most (an email, a uuid); the server's own validation still has
 * the last word on anything both let through.
 *
 * Where Ajv cannot compile a schema (a remote `$ref`, code generation disallowed), the check
 * is cfworker's alone, as before.
 */
export class ArgumentCheck {
  /** Ajv's compiled check; `null` once it could not compile this schema. */
  private compiled: ValidateFunction | null | undefined;
  /** cfworker's table of the schema's `$ref`s, built on first use; `null` where it cannot be built. */
  private refs: SchemaLookup | null | undefined;
  private uses = 0;

  /** @param compileAfter calls checked by interpreting before the schema is compiled. */
  constructor(
    private readonly schema: Schema,
    private readonly compileAfter = COMPILE_AFTER,
  ) {}

  /**
   * The arguments as they are sent: `null` left out where a property is optional and its schema
   * does not accept null (SEP-2243; see omitNulls.ts). `args` itself when nothing changes.
   */
  prepare(args: unknown): unknown {
    const lookup = this.lookup();
    return lookup ? omitNulls(args, this.schema, lookup) : args;
  }

  /**
   * `undefined` when the arguments fit the schema; otherwise one line naming each bad field and
   * what it expects, e.g. `'path' must be a string (got number); 'depth' is required.`
   */
  problems(args: unknown): string | undefined {
    return this.found(args)?.line;
  }

  /** `undefined` when the arguments fit the schema; otherwise that line, and each problem in it for the error's data. */
  found(args: unknown): { line: string; fields: FieldProblem[] } | undefined {
    if (this.compiled === undefined && ++this.uses > this.compileAfter) this.compiled = compile(this.schema);
    if (this.compiled?.(args)) return undefined;
    const lookup = this.lookup();
    // Every error, not the first: the model should fix every field in one go. A valid input
    // costs the same either way; only a rejected one is looked at further.
    const result = validate(args, this.schema, "2019-09", lookup ?? undefined, false);
    return result.valid ? undefined : argumentProblems(result.errors, args, this.schema, lookup);
  }

  private lookup(): SchemaLookup | undefined {
    if (this.refs === undefined) this.refs = lookupOf(this.schema) ?? null;
    return this.refs ?? undefined;
  }
}

/** Calls of a tool checked by interpreting its schema before it is compiled. */
export const COMPILE_AFTER = 32;

let shared: Ajv2019 | undefined;

function ajv(): Ajv2019 {
  if (!shared) {
    // Lenient as cfworker is: unknown keywords and formats are ignored, the schema itself is
    // not judged, and schemas are not registered by `$id` (two tools may share one).
    shared = new Ajv2019({ strict: false, validateSchema: false, addUsedSchema: false, allErrors: false, logger: false });
    for (const [name, check] of Object.entries(format)) shared.addFormat(name, { type: "string", validate: (value: string) => check(value) });
  }
  return shared;
}

function compile(schema: Schema): ValidateFunction | null {
  try {
    // The draft is ours to choose, as it is for cfworker: a `$schema` naming another one
    // (draft-07, as zod-to-json-schema writes) would make Ajv look for that meta-schema.
    const { $schema: _draft, ...rest } = schema as Schema & { $schema?: unknown };
    return ajv().compile(rest);
  } catch {
    return null;
  }
}
