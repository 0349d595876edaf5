import { ToolInputParsingException } from "@langchain/core/tools";
import { detailsOf, receivedByField, typeOf, zodIssues, zodPhrase, type FieldProblem, type ZodIssue } from "./argumentText.js";

export type { FieldProblem } from "./argumentText.js";

/**
 * The `data` of an `invalid_arguments` error, for code (the model reads the message's line).
 * Values the model sent are never kept, only their JSON types: an argument may be a secret.
 */
export interface InvalidArgumentsData {
  /** For each bad field, the JSON type sent there (`missing` where nothing was); `""` is the arguments as a whole. */
  received: Record<string, string>;
  /** Each problem: the field, the keyword it failed, what the model reads of it, what was sent. */
  fields: FieldProblem[];
}

/** The problems our own check found, by the exception that carries them through LangChain's call. */
const checked = new WeakMap<object, readonly FieldProblem[]>();

/** LangChain's exception for arguments our check refused (callbacks see what LangChain's own check raises), with the problems kept for the error's data. */
export function invalidArguments(line: string, fields: readonly FieldProblem[], arg: unknown): ToolInputParsingException {
  const exception = new ToolInputParsingException(`Received tool input did not match expected schema\nDetails: ${line}`, JSON.stringify(arg));
  checked.set(exception, fields);
  return exception;
}

/** What was wrong with the arguments, field by field: from our check, or read from a zod schema's issues. */
export function invalidArgumentsData(exception: ToolInputParsingException, args: unknown): InvalidArgumentsData {
  const fields = [...(checked.get(exception) ?? zodFields(exception.message, args) ?? [])];
  // A message read neither way still says what the arguments as a whole were.
  return { received: fields.length > 0 ? receivedByField(fields) : { "": typeOf(args) }, fields };
}

function zodFields(message: string, args: unknown): FieldProblem[] | undefined {
  return zodIssues(detailsOf(message))?.map((issue) => {
    const path = Array.isArray(issue.path) ? issue.path.map((p) => (typeof p === "number" ? p : String(p))) : [];
    return { field: pathText(path), keyword: typeof issue.code === "string" ? issue.code : "invalid", problem: zodPhrase(issue), received: receivedOf(issue, path, args) };
  });
}

function receivedOf(issue: ZodIssue, path: readonly (string | number)[], args: unknown): string {
  let node = args;
  for (const segment of path) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, segment)) return "missing";
    node = (node as Record<string, unknown>)[segment];
  }
  return node === undefined && issue.code === "invalid_type" ? "missing" : typeOf(node);
}

function pathText(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
}
