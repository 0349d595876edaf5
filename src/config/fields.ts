/**
 * The building blocks of the configuration schema. Each one carries its own message, worded
 * for a person reading `Invalid MCP toolkit configuration: <field>: <problem>`.
 */
import { z } from "zod";

type Issue = z.core.$ZodRawIssue;

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A value as a message shows it: briefly, and an object never by its contents. */
export function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "function") return "a function";
  return Array.isArray(value) ? "an array" : value === null ? "null" : typeof value === "object" ? "an object" : String(value);
}

/** `"a", "b" or "c"`, for messages. */
function either(values: readonly unknown[]): string {
  const shown = values.map((v) => (typeof v === "string" ? `"${v}"` : String(v)));
  return shown.length > 1 ? `${shown.slice(0, -1).join(", ")} or ${shown.at(-1)}` : (shown[0] ?? "nothing");
}

/** A message that ends in what was actually given. */
export const expected = (what: string) => (issue: Issue) => `expected ${what}, got ${describe(issue.input)}`;

/** A schema of `T` that is a predicate: `z.custom` with a message naming what was expected. */
export function custom<T>(what: string, test: (value: unknown) => boolean): z.ZodCustom<T, T> {
  return z.custom<T>(test, { error: expected(what) });
}

export interface NumberRule {
  /** @default 0 */
  min?: number;
  /** @default Infinity */
  max?: number;
  /** Whole numbers only. @default false */
  integer?: boolean;
  /** `Infinity` is allowed (as "no limit"). @default false */
  infinite?: boolean;
}

/**
 * A number ≥ `min`. Not `z.number()`, which rejects `Infinity`: several limits take it to mean
 * "none", and the message should read the same whichever way a number is wrong.
 */
export function number({ min = 0, max = Number.POSITIVE_INFINITY, integer = false, infinite = false }: NumberRule = {}): z.ZodCustom<number, number> {
  const range = max === Number.POSITIVE_INFINITY ? `≥ ${min}` : `from ${min} to ${max}`;
  return custom<number>(
    `${integer ? "a whole number" : "a number"} ${range}`,
    (v) => typeof v === "number" && v >= min && v <= max && (Number.isFinite(v) ? !integer || Number.isInteger(v) : infinite && v === Number.POSITIVE_INFINITY),
  );
}

export const flag = () => z.boolean({ error: expected("true or false") });

export const text = () => z.string({ error: expected("a string") });

export const nonEmptyText = () => z.string({ error: expected("a non-empty string") }).refine((s) => s.trim() !== "", { error: expected("a non-empty string") });

/** One of a few literal values; the type is their union. */
export function oneOf<const T extends readonly [z.core.util.Literal, ...z.core.util.Literal[]]>(values: T): z.ZodLiteral<T[number]> {
  return z.literal(values, { error: expected(either(values)) });
}

export const stringArray = () => z.array(text(), { error: expected("an array of strings") });

/** Header or environment values, every one a string. */
export const stringRecord = () => z.record(z.string(), text(), { error: expected("an object of strings") });

/** A function of exactly the type `F`; its arguments are the type's business, not the schema's. */
export const fn = <F>() => custom<F>("a function", (v) => typeof v === "function");

/** Why `value` is not an http(s) URL, or undefined when it is one. */
function urlProblem(value: unknown): string | undefined {
  if (typeof value !== "string" && !(value instanceof URL)) return `expected a URL, got ${describe(value)}`;
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    return `not a valid URL: ${describe(value)}`;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? undefined : `expected an http: or https: URL, got ${url.protocol}`;
}

export const httpUrl = () => z.custom<string | URL>((v) => urlProblem(v) === undefined, { error: (issue) => urlProblem(issue.input) });

/**
 * An object of options that names any key it does not know, since a misspelt option
 * (`timeoutMS`) would otherwise be dropped without a word.
 */
export function options<const Shape extends z.core.$ZodLooseShape>(shape: Shape): z.ZodObject<z.core.util.Writeable<Shape>, z.core.$strict> {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => (issue.code === "unrecognized_keys" ? unknownOption(issue.keys[0] ?? "", known) : expected("an object")(issue)),
  });
}

function unknownOption(key: string, known: readonly string[]): string {
  const near = nearest(key, known);
  return near ? `unknown option; did you mean "${near}"?` : `unknown option; expected one of ${known.join(", ")}`;
}

/**
 * The known name `key` most likely misspells, ignoring case: at most two edits away (one for a
 * name of four letters or fewer, so that `env` is not taken for `era`), the nearest first.
 */
export function nearest(key: string, known: readonly string[]): string | undefined {
  const k = key.toLowerCase();
  const limit = k.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const name of known) {
    const distance = editDistance(k, name.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [name, distance];
  }
  return best;
}

/**
 * Insertions, deletions, substitutions and swaps of two neighbours that turn `a` into `b`
 * (Damerau-Levenshtein, each substring edited once): `comand` is one from `command`, `evn` one from `env`.
 */
export function editDistance(a: string, b: string): number {
  const width = b.length + 1;
  // Three rows suffice: a swap looks two rows back.
  let before = new Array<number>(width).fill(0);
  let previous = Array.from({ length: width }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
    }
    [before, previous] = [previous, row];
  }
  return previous[b.length]!;
}
