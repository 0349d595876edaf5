/**
 * Properties of the model line: generated secrets, embedded in generated server text, never
 * survive `toModelText`; the line holds no escape or control character; its length is bounded.
 *
 * What "never survive" means here:
 * - A configured secret (any string of 8+ characters, passed in `secrets`) matches anywhere:
 *   glued to words, split by an ANSI escape, holding control characters itself, straddling
 *   the 1,000-character cut or the cut of a huge message. Neither the secret nor the form
 *   cleaning would give it (escapes and control characters removed) may appear in the message.
 * - A built-in shape (a bearer token, an sk- key, a URL password…) is recognised by its form,
 *   and some forms also end ordinary words ("task-…" holds "sk-…"). Those start at a word
 *   boundary, so the generated text puts a separator before them (which may be followed by an
 *   escape). The distinctive prefixes (eyJ…, sk-ant-, ghp_, xoxb-…) are tested glued to
 *   arbitrary text.
 * The secret is looked for in the message part of the line only: the hint and the template are
 * fixed text. Configured secrets holding "[", "]" or "…", or ending in ".", are left out, since
 * the line itself writes those characters next to the text around the secret ("[REDACTED]",
 * "… [n more characters cut]", the closing period), so such a secret could appear by accident.
 *
 * Each property draws a fresh seed per run. A failure prints its seed, path and shrunk
 * counterexample; replay it with PROPERTY_SEED=<seed> PROPERTY_PATH=<path> (and the same
 * `-t` filter), search wider with PROPERTY_RUNS=<n>. A counterexample once found stays as an
 * `examples` entry, which runs first on every run.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { McpToolError } from "../../src/errors/McpToolError.js";
import { HINTS, type Reason } from "../../src/errors/reasons.js";
import { toModelText, type ModelTextOptions } from "../../src/errors/text.js";

const RUNS: fc.Parameters<unknown> = {
  numRuns: Number(process.env.PROPERTY_RUNS ?? 300),
  ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED) } : {}),
  ...(process.env.PROPERTY_PATH ? { path: process.env.PROPERTY_PATH } : {}),
};
const ESC = "\u001b";
const PREFIX = "Error: Tool 'search' failed (tool_error): ";
const SUFFIX = ` ${HINTS.read_tool_message}`;

function messageOf(message: string, options: ModelTextOptions = {}): string {
  const line = toModelText(McpToolError.of("tool_error", message, { toolName: "search" }), options);
  expect(line.startsWith(PREFIX)).toBe(true);
  expect(line.endsWith(SUFFIX)).toBe(true);
  return line.slice(PREFIX.length, line.length - SUFFIX.length);
}

// --- Generated server text ----------------------------------------------------------------

const ESCAPES = [`${ESC}[31m`, `${ESC}[0m`, `${ESC}[1;4m`, `${ESC}[38;5;208m`, `${ESC}]8;;https://example.com/x${ESC}\\`, `${ESC}]8;;${ESC}\\`, `${ESC}]0;title\u0007`, `\u009b33m`, `${ESC}(B`];
const NASTY = [
  ...ESCAPES,
  ESC,
  `${ESC}[`,
  "\n",
  "\r\n",
  "\r",
  "\t",
  '"',
  "'",
  " ",
  "\u0000",
  "\u0007",
  "\u0008",
  "\u007f",
  "\u0085",
  "\u200b",
  "\u202e",
  "\\",
  "=",
  ":",
  "@",
  "MCP error -32602: ",
  "\n    at handler (/app/server.js:10:5)\n",
  "\n\n",
];
const char1 = (unit: "grapheme-ascii" | "binary") => fc.string({ unit, minLength: 1, maxLength: 1 });
const noiseUnit = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY), weight: 2 },
  { arbitrary: char1("grapheme-ascii"), weight: 6 },
  { arbitrary: char1("binary"), weight: 1 },
);
const noise = (maxLength: number) => fc.string({ unit: noiseUnit, maxLength });

/** Text of about `length` characters, plain or full of what cleaning removes. */
const filler = (minLength: number, maxLength: number) =>
  fc.tuple(fc.integer({ min: minLength, max: maxLength }), fc.constantFrom("w", "word ", "\u0001", `${ESC}[0m`, "ab\n", `x${ESC}[2m `)).map(([n, unit]) =>
    unit.repeat(Math.ceil(n / unit.length)).slice(0, n),
  );

/** Where a secret sits: anywhere short, just before the 1,000-character cut, or around the cut of a huge message. */
const before = fc.oneof(noise(80), filler(900, 1010), filler(5500, 8500));

// --- Generated secrets --------------------------------------------------------------------

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const chars = (alphabet: string, minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength, maxLength });
const b64url = (s: string) => Buffer.from(s).toString("base64url");

interface Shape {
  /** The text as it stands in the message. */
  text: string;
  /** Pieces that must not appear in the output. */
  secrets: string[];
  /** Recognised glued to any text; otherwise it needs a separator before it. */
  anywhere: boolean;
}

const SHAPES: Record<string, fc.Arbitrary<Shape>> = {
  bearer: fc.tuple(fc.constantFrom("Bearer", "bearer", "Token"), chars(`${ALNUM}._~+/=-`, 20, 60)).map(([scheme, t]) => ({
    text: `${scheme} 9${t}`,
    secrets: [`9${t}`],
    anywhere: false,
  })),
  basic: fc.tuple(chars(ALNUM, 6, 12), chars(ALNUM, 8, 20)).map(([user, pass]) => {
    const b64 = Buffer.from(`${user}:${pass}`).toString("base64");
    return { text: `Basic ${b64}`, secrets: [b64], anywhere: false };
  }),
  jwt: fc.tuple(fc.record({ sub: chars(ALNUM, 1, 20), iat: fc.nat() }), chars(`${ALNUM}_-`, 20, 60)).map(([claims, sig]) => {
    const token = `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(JSON.stringify(claims))}.${sig}`;
    return { text: token, secrets: [token, sig], anywhere: true };
  }),
  sk: chars(`${ALNUM}_-`, 20, 60).map((body) => ({ text: `sk-${body}`, secrets: [`sk-${body}`, body], anywhere: false })),
  skAnt: chars(`${ALNUM}_-`, 20, 80).map((body) => ({ text: `sk-ant-api03-${body}`, secrets: [body], anywhere: true })),
  skProj: chars(`${ALNUM}_-`, 20, 80).map((body) => ({ text: `sk-proj-${body}`, secrets: [body], anywhere: true })),
  ghp: chars(ALNUM, 36, 36).map((body) => ({ text: `ghp_${body}`, secrets: [body], anywhere: true })),
  githubPat: chars(`${ALNUM}_`, 40, 82).map((body) => ({ text: `github_pat_${body}`, secrets: [body], anywhere: true })),
  aws: chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 16, 16).map((body) => ({ text: `AKIA${body}`, secrets: [`AKIA${body}`], anywhere: false })),
  slack: fc.tuple(chars("0123456789", 10, 13), chars(ALNUM, 16, 24)).map(([team, body]) => ({
    text: `xoxb-${team}-${body}`,
    secrets: [`${team}-${body}`],
    anywhere: true,
  })),
  urlCredentials: fc.tuple(chars(ALNUM, 3, 10), chars(ALNUM, 8, 24)).map(([user, pass]) => ({
    text: `https://${user}:${pass}@db.example.com/`,
    secrets: [pass],
    anywhere: false,
  })),
  keyValue: fc
    .tuple(fc.constantFrom("password", "api_key", "client_secret", "access_token", "Authorization", "X-Api-Key"), chars(ALNUM, 8, 30), fc.nat(2))
    .map(([key, value, style]) => ({
      text: [`${key}=${value}`, `${key}: ${value}`, `"${key}": "${value}"`][style]!,
      secrets: [value],
      anywhere: false,
    })),
};

const SEPARATORS = [" ", "\n", "\t", '"', "'", "=", ":", "(", ",", `\n${ESC}[31m`, ` ${ESC}[1m`, `=${ESC}]8;;x${ESC}\\`, `"${ESC}[0m`];
const GLUED = ["", `${ESC}[31m`, "\u0000", "\u200b", `${ESC}]8;;x\u0007`];

interface Placement {
  shape: Shape;
  before: string;
  separator: string;
  after: string;
  rest: string;
  maxLength: number | undefined;
}

/**
 * Counterexamples the properties once found (and close variants), replayed first on every
 * run. Each was a real leak, fixed in the code, not a generator mistake.
 */
const FOUND: Partial<Record<string, Placement[]>> = {
  // Cleaning reads "\u001b( " as a charset designation and eats the separator's space, so
  // the "+" before it glues to the scheme: "+https://…", whose password redaction missed
  // (a scheme cannot start with "+", and the match would not start after one). The first two
  // are what fast-check shrank to; the third glues a digit, through a quote separator.
  urlCredentials: [
    {
      shape: { text: "https://80c1QwIC:YwDIqmFC319c4XtxhN@db.example.com/", secrets: ["YwDIqmFC319c4XtxhN"], anywhere: false },
      before: `+${ESC}(`,
      separator: ` ${ESC}[1m`,
      after: "",
      rest: "",
      maxLength: undefined,
    },
    {
      shape: { text: "https://plH:NbAIIoMUZtKF6OKCE@db.example.com/", secrets: ["NbAIIoMUZtKF6OKCE"], anywhere: false },
      before: `+${ESC}(`,
      separator: ` ${ESC}[1m`,
      after: "",
      rest: "",
      maxLength: 50,
    },
    {
      shape: { text: "https://admin:9xQ2vLm7Tr@db.example.com/", secrets: ["9xQ2vLm7Tr"], anywhere: false },
      before: `port 5${ESC})`,
      separator: `"${ESC}[0m`,
      after: " ",
      rest: "retrying",
      maxLength: 200,
    },
  ],
};

// --- Configured secrets -------------------------------------------------------------------

const secretUnit = fc.oneof(
  { arbitrary: char1("grapheme-ascii"), weight: 8 },
  { arbitrary: char1("binary"), weight: 2 },
  { arbitrary: fc.constantFrom("\n", "\r", "\t", " ", ESC, "\u0000", "\u0007", "\u200b", '"', "\\", "%", "@", "/"), weight: 2 },
);

/** What cleaning may leave of a secret: its escapes and control characters removed. */
function visibleForms(secret: string): string[] {
  const controls = secret.replace(/\r\n?/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g, "");
  const escapes = secret
    .replace(/\u001b[()*+\-./][ -~]|\u001b[@-Z\\-_]/g, "")
    .replace(/\r\n?/g, "\n")
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g, "")
    .replace(/\n{2,}/g, "\n")
    .trim();
  return [secret, controls, escapes];
}

/** Could the line's own text form this string next to the text around it? Then it is no test. */
const checkable = (s: string) => s.length >= 8 && !/[[\]…]/.test(s) && !s.endsWith(".");
const configuredSecret = fc.string({ unit: secretUnit, minLength: 8, maxLength: 40 }).filter((s) => visibleForms(s).every((f) => f.length < 8 || checkable(f)) && checkable(s));

/** Splits a secret with an escape, sometimes, so that only the cleaned text shows it whole. */
const placed = (secret: string) =>
  fc.oneof(
    fc.constant(secret),
    fc.tuple(fc.integer({ min: 1, max: secret.length - 1 }), fc.constantFrom(...ESCAPES, "\u0000", "\u200b")).map(([at, esc]) => `${secret.slice(0, at)}${esc}${secret.slice(at)}`),
  );

function expectAbsent(message: string, secrets: readonly string[]): void {
  for (const s of secrets) {
    for (const form of visibleForms(s)) {
      if (checkable(form)) expect(message, `secret ${JSON.stringify(form)} survived`).not.toContain(form);
    }
  }
}

// --- Properties ---------------------------------------------------------------------------

describe("generated secrets never survive toModelText", () => {
  it.each(Object.keys(SHAPES))("built-in shape %s, embedded in generated server text", (name) => {
    const shape = SHAPES[name]!;
    const arbitrary = shape.chain((s) =>
      fc.record({
        shape: fc.constant(s),
        before,
        separator: fc.constantFrom(...SEPARATORS, ...(s.anywhere ? GLUED : [])),
        after: fc.oneof(fc.constantFrom(...SEPARATORS), fc.constant("")),
        rest: noise(80),
        maxLength: fc.oneof(fc.constant(undefined), fc.integer({ min: 50, max: 2000 })),
      }),
    );
    fc.assert(
      fc.property(arbitrary, ({ shape: s, before: b, separator, after, rest, maxLength }: Placement) => {
        // A secret the generated noise happens to spell (a password "isProtot" beside noise holding
        // "isPrototypeOf", one of the words fast-check slips into strings) is text the line cannot
        // know is secret: no test of redaction.
        fc.pre(!s.secrets.some((secret) => `${b}${separator}${after}${rest}`.includes(secret)));
        const message = `${b}${separator}${s.text}${after}${rest}`;
        expectAbsent(messageOf(message, { maxLength }), s.secrets);
      }),
      { ...RUNS, examples: (FOUND[name] ?? []).map((found) => [found]) },
    );
  });

  it("configured secrets (8+ characters, any text), anywhere, split by escapes, near either cut", () => {
    const arbitrary = fc.array(configuredSecret, { minLength: 1, maxLength: 3 }).chain((secrets) =>
      fc.record({
        secrets: fc.constant(secrets),
        pieces: fc.tuple(...secrets.map((s) => fc.tuple(before, placed(s), noise(40)))),
        maxLength: fc.oneof(fc.constant(undefined), fc.integer({ min: 20, max: 2000 })),
      }),
    );
    fc.assert(
      fc.property(arbitrary, ({ secrets, pieces, maxLength }) => {
        const message = pieces.map(([b, s, a]) => `${b}${s}${a}`).join("");
        expectAbsent(messageOf(message, { secrets, maxLength }), secrets);
      }),
      RUNS,
    );
  });

  it("a configured secret straddling the cut of a huge message, after text that cleaning or redaction shrinks", () => {
    const arbitrary = fc.record({
      secret: fc.string({ unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"), minLength: 8, maxLength: 300 }).filter((s) => !s.includes("REDACTED")),
      offset: fc.integer({ min: 5000, max: 12_000 }),
      unit: fc.constantFrom("\u0001", `${ESC}[0m`, "x", "sk-aaaaaaaaaaaaaaaaaaaaaaaaaaaaa ", "password=abcdefghijklmnopq "),
      tail: fc.integer({ min: 0, max: 20_000 }),
    });
    fc.assert(
      fc.property(arbitrary, ({ secret, offset, unit, tail }) => {
        const head = unit.repeat(Math.ceil(offset / unit.length)).slice(0, offset);
        const out = messageOf(`${head}${secret}${"y".repeat(tail)}`, { secrets: [secret, "abcdefghijklmnopq"] });
        expect(out).not.toContain(secret);
        // Nor any recognisable piece of it: 8 characters or more from anywhere in it.
        for (let i = 0; i + 8 <= secret.length; i++) expect(out).not.toContain(secret.slice(i, i + 8));
      }),
      RUNS,
    );
  });
});

describe("the line is safe to show", () => {
  const REASONS: Reason[] = ["tool_error", "request_timeout", "service_unavailable", "unauthorized", "invalid_params", "connection_closed"];

  it("never contains an escape, a C0 control other than newline and tab, or a C1 control", () => {
    fc.assert(
      fc.property(noise(400), noise(30), fc.constantFrom(...REASONS), fc.integer({ min: 1, max: 5 }), (message, name, reason, attempts) => {
        const line = toModelText(McpToolError.of(reason, message, { toolName: name, attempts }));
        expect(line).not.toContain(ESC);
        expect(line).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      }),
      RUNS,
    );
  });

  it("is at most maxLength plus a fixed overhead long", () => {
    const OVERHEAD = 600; // template, a 200-character name at most, the cut note, the longest hint
    fc.assert(
      fc.property(
        fc.oneof(noise(200), filler(0, 30_000)),
        fc.oneof(fc.constant(undefined), fc.integer({ min: 0, max: 3000 })),
        fc.constantFrom(...REASONS),
        fc.string({ maxLength: 300 }),
        (message, maxLength, reason, name) => {
          const line = toModelText(McpToolError.of(reason, message, { toolName: name, attempts: 3 }), { maxLength });
          expect(line.length).toBeLessThanOrEqual((maxLength ?? 1000) + OVERHEAD);
        },
      ),
      RUNS,
    );
  });
});
