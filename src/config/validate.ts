import type { z } from "zod";
import { redact, type RedactOptions } from "../errors/redact.js";
import { isObject, nearest } from "./fields.js";
import { McpToolkitConfigSchema, type McpToolkitConfig } from "./schema.js";
import { redactionOf } from "./secrets.js";

/**
 * Thrown by `McpToolkit.connect` for configuration that cannot work; the message names the field.
 * The problem, which may echo the value given (an unparsable URL with its password), passes the
 * same redaction as everything else that leaves the library: the built-in shapes always, and the
 * configuration's own secrets where it is known.
 */
export class McpConfigError extends Error {
  override readonly name = "McpConfigError";
  constructor(
    /** The dotted path of the field, as in `servers.files.command` or `servers.a.args[0]`. */
    readonly field: string,
    problem: string,
    /** The secrets to remove besides the built-in shapes: the configuration's, when it is known. */
    redaction: RedactOptions = {},
  ) {
    // The problem alone: `X-Api-Key: expected…` read as key and value would lose the word after the field.
    super(`Invalid MCP toolkit configuration: ${field}: ${redact(problem, redaction)}`);
  }
}

/**
 * Rejects configuration that cannot work, naming the first field that is wrong (an unknown
 * option included). Nothing is filled in: the caller keeps its own object, functions and
 * clients by identity, and unset options stay unset for the layers above to decide.
 */
export function validateConfig(config: unknown): asserts config is McpToolkitConfig {
  const result = McpToolkitConfigSchema.safeParse(config);
  if (result.success) return;
  const first = result.error.issues[0];
  if (!first) throw new McpConfigError("config", "rejected without a reason");
  const [path, problem] = explain(first, config, []);
  const misspelt = misspeltKey(path, config);
  if (misspelt) throw new McpConfigError(fieldName(misspelt), `unknown option; did you mean "${String(path.at(-1))}"?`);
  throw new McpConfigError(path.length === 0 ? "config" : fieldName(path), problem, redactionOf(config));
}

/**
 * A required key that is missing because it is misspelt (`comand`, `transprt`): the schema sees
 * the missing key first, but the key beside it that is one or two edits away is what to fix.
 */
function misspeltKey(path: Path, root: unknown): Path | undefined {
  const missing = path.at(-1);
  if (typeof missing !== "string" || valueAt(root, path) !== undefined) return undefined;
  const parent = valueAt(root, path.slice(0, -1));
  if (!isObject(parent)) return undefined;
  const key = Object.keys(parent).find((k) => k !== missing && nearest(k, [missing]) !== undefined);
  return key === undefined ? undefined : [...path.slice(0, -1), key];
}

type Path = readonly PropertyKey[];

/** `servers.a.args[0]`: array indexes in brackets, every other key after a dot. */
function fieldName(path: Path): string {
  return path.map((key, i) => (typeof key === "number" ? `[${key}]` : `${i === 0 ? "" : "."}${String(key)}`)).join("");
}

/** The field and the problem of one issue, from the parent's path down. */
function explain(issue: z.core.$ZodIssue, root: unknown, parent: Path): [Path, string] {
  const path = [...parent, ...issue.path];
  switch (issue.code) {
    case "unrecognized_keys":
      return [[...path, issue.keys[0] ?? ""], issue.message];
    case "invalid_key":
      return [path, issue.issues[0]?.message ?? issue.message];
    case "invalid_union": {
      const branch = meantBranch(issue.errors, valueAt(root, path));
      const first = branch?.[0];
      return first ? explain(first, root, path) : [path, issue.message];
    }
    default:
      return [path, issue.message];
  }
}

/**
 * A value that fits no branch of a union is reported as the branch it meant: the one whose
 * problems all concern keys the value has (a `client` that is not a Client), else the last
 * (a server config is told apart by its `transport`, so a missing one is the problem to name).
 */
function meantBranch(branches: z.core.$ZodIssue[][], value: unknown): z.core.$ZodIssue[] | undefined {
  const has = (issue: z.core.$ZodIssue) => {
    const key = issue.code === "unrecognized_keys" ? issue.keys[0] : issue.path[0];
    return isObject(value) && key !== undefined && Object.hasOwn(value, key);
  };
  return branches.find((issues) => issues.length > 0 && issues.every(has)) ?? branches.at(-1);
}

function valueAt(root: unknown, path: Path): unknown {
  let value = root;
  for (const key of path) value = isObject(value) || Array.isArray(value) ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}
