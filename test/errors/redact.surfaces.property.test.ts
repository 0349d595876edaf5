/**
 * Properties of every path an error takes out of the library, over generated errors, results,
 * contexts and configured secrets:
 * - `normalize` never throws, whatever it is given (hostile objects included), and always gives
 *   a valid, branded McpToolError;
 * - no secret the configuration holds (env, headers, flags, URL) appears on any surface: the
 *   model's text and the artifact, `handleError` and `wrapToolError`, the redacted error (as
 *   `util.inspect` prints it, hidden properties included, as JSON, as a string and its stack), an
 *   event carrying it, and span status, attributes and events.
 *
 * The secrets are generated as the configuration gives them: a word-like one (letters and
 * digits) is removed where it stands as a whole token, so the generated text puts a separator
 * around it; a credential-like one (holding a symbol) is removed anywhere. Secrets holding "[",
 * "]" or "…" are left out: the surfaces write those characters themselves next to the text.
 *
 * Each property draws a fresh seed per run; a failure prints its seed and path. Replay with
 * PROPERTY_SEED=<seed> PROPERTY_PATH=<path>, search wider with PROPERTY_RUNS=<n>.
 */
import { inspect } from "node:util";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectSecrets } from "../../src/config/secrets.js";
import type { McpToolkitConfig } from "../../src/config/index.js";
import { isMcpToolError, McpToolError } from "../../src/errors/McpToolError.js";
import { normalize, type NormalizeContext } from "../../src/errors/normalize.js";
import { isReason, REASONS } from "../../src/errors/reasons.js";
import { handleError, redactError, toModelReply, wrapToolError, type ModelTextOptions } from "../../src/errors/text.js";
import { EventHub } from "../../src/eventHub.js";
import { ToolkitTelemetry } from "../../src/telemetry/ToolkitTelemetry.js";
import { registerSdk, type TestSdk } from "../telemetry/sdk.js";

const RUNS = Number(process.env.PROPERTY_RUNS ?? 200);
const params = <T>(runs = RUNS): fc.Parameters<T> => ({
  numRuns: runs,
  ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED) } : {}),
  ...(process.env.PROPERTY_PATH ? { path: process.env.PROPERTY_PATH } : {}),
});

// --- Generated configuration secrets -------------------------------------------------------

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const chars = (alphabet: string, minLength: number, maxLength: number) => fc.string({ unit: fc.constantFrom(...alphabet), minLength, maxLength });

/** A password such as `correcthorse` (a whole token) or `r3d1s-s3cr3t!` (anywhere). */
const secretValue = fc.oneof(
  chars(ALNUM, 8, 24).filter((s) => /[A-Za-z]/.test(s) && !/^(?:true|false|undefined|disabled|required|optional)$/i.test(s)),
  fc.tuple(chars(ALNUM, 3, 12), fc.constantFrom("-", "!", "$", "%", "*", "+", "=", "~", "#", "^"), chars(ALNUM, 3, 12)).map(([a, s, b]) => `${a}${s}${b}`),
);
const secretName = fc.constantFrom("DB_PASS", "REDIS_PASS", "PGPASSWORD", "API_KEY", "GITHUB_TOKEN", "client_secret", "SESSION_ID", "MYSQL_PWD", "AUTH", "X-Api-Key");

interface Secrets {
  config: McpToolkitConfig;
  /** The values the configuration holds under secret names, or in its URL. */
  values: string[];
}

const configured: fc.Arbitrary<Secrets> = fc
  .record({
    env: fc.uniqueArray(fc.tuple(secretName, secretValue), { minLength: 1, maxLength: 3, selector: ([name]) => name }),
    header: fc.tuple(secretName, secretValue),
    flag: secretValue,
    urlKey: secretValue,
  })
  .map(({ env, header, flag, urlKey }) => ({
    config: {
      servers: {
        local: { transport: "stdio", command: "node", args: ["server.js", "--password", flag], env: Object.fromEntries(env) },
        remote: { transport: "http", url: `https://api.example.com/mcp?key=${encodeURIComponent(urlKey)}`, headers: { [header[0]]: header[1] } },
      },
    },
    values: [...new Set([...env.map(([, v]) => v), header[1], flag, urlKey])],
  }));

// --- Generated server text, errors, results and contexts ------------------------------------

// A separator may be an ANSI escape alone: what a terminal shows is the secret standing alone.
const separator = fc.constantFrom(" ", "\n", ": ", "=", '"', "'", "(", ")", ", ", "/", "\t", "\u001b[31m", "\u001b[0m", "\u001b[1;4m ", " \u001b[0m");
const prose = fc.string({ unit: fc.constantFrom(..."abcdefghij klmnop.,:=-_/"), maxLength: 40 });

/** Text holding some of the secrets, each with a separator on both sides. */
const leakyText = (values: string[]) =>
  fc.array(fc.tuple(prose, separator, fc.constantFrom(...values), separator), { maxLength: 4 }).chain((parts) =>
    prose.map((tail) => parts.map(([p, a, v, b]) => `${p}${a}${v}${b}`).join("") + tail),
  );

const NAMES = ["Error", "McpError", "SdkError", "ProtocolError", "StreamableHTTPError", "SseError", "UnauthorizedError", "TypeError", "AbortError", "TimeoutError", "FetchError"];
const CODES: unknown[] = [-32000, -32001, -32020, -32021, -32022, -32023, -32042, -32600, -32601, -32602, -32603, -32700, 429, 404, "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_SOCKET", "ENOENT", "REQUEST_TIMEOUT", "CONNECTION_CLOSED", "ERA_NEGOTIATION_FAILED", "CERT_HAS_EXPIRED"];

function thrownFrom(values: string[]): fc.Arbitrary<unknown> {
  const text = leakyText(values);
  const data = fc.oneof(fc.constant(undefined), text, fc.dictionary(fc.oneof(text, fc.constantFrom("stderr", "token", "detail")), fc.oneof(text, fc.integer(), fc.anything({ maxDepth: 2 }))));
  const errorLike: fc.Arbitrary<unknown> = fc.letrec<{ error: unknown }>((tie) => ({
    error: fc
      .record(
        {
          message: text,
          name: fc.constantFrom(...NAMES),
          code: fc.constantFrom(...CODES),
          status: fc.constantFrom(400, 401, 403, 404, 408, 429, 500, 502, 503, 504),
          data,
          syscall: fc.constantFrom("connect", "read", "write", "getaddrinfo", "spawn node"),
          cause: fc.oneof({ depthSize: "small" }, fc.constant(undefined), tie("error")),
          body: text,
          asError: fc.boolean(),
        },
        { requiredKeys: ["message", "asError"] },
      )
      .map(({ asError, message, ...rest }) => (asError ? Object.assign(new Error(message), rest) : { message, ...rest })),
  })).error;
  const result = fc.record({ isError: fc.constant(true), content: fc.array(fc.record({ type: fc.constant("text"), text }), { maxLength: 3 }) });
  return fc.oneof({ arbitrary: errorLike, weight: 5 }, { arbitrary: result, weight: 1 }, { arbitrary: text, weight: 1 }, { arbitrary: fc.anything({ maxDepth: 2 }), weight: 1 });
}

function contextFrom(values: string[]): fc.Arbitrary<NormalizeContext> {
  const text = leakyText(values);
  return fc.record(
    {
      toolName: fc.constantFrom("query", "search", "files__read"),
      serverName: fc.constantFrom("db", "remote"),
      attempts: fc.integer({ min: 1, max: 5 }),
      timedOut: fc.boolean(),
      aborted: fc.boolean(),
      transportClosed: fc.boolean(),
      hadSession: fc.boolean(),
      notSent: fc.boolean(),
      url: fc.constantFrom(...values).map((v) => `https://user:${encodeURIComponent(v)}@api.example.com/mcp?token=${encodeURIComponent(v)}`),
      exit: fc.record({ exitCode: fc.option(fc.integer({ min: 0, max: 255 })), stderrTail: text }, { requiredKeys: [] }),
      response: fc.record(
        { status: fc.constantFrom(200, 401, 403, 404, 500, 502, 503), body: text, wwwAuthenticate: text.map((t) => `Bearer error="invalid_token", error_description="${t}"`), unexpected: fc.constantFrom("html", "not_json_rpc", "empty", "content_type") },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: [] },
  );
}

const scenario = configured.chain((secrets) => fc.record({ secrets: fc.constant(secrets), thrown: thrownFrom(secrets.values), context: contextFrom(secrets.values), args: fc.dictionary(fc.constantFrom("password", "query", "note"), leakyText(secrets.values)) }));

// --- The surfaces ---------------------------------------------------------------------------

function optionsOf(config: McpToolkitConfig): ModelTextOptions {
  const { secrets, words } = collectSecrets(config);
  return { secrets, words };
}

function printed(thing: unknown): string[] {
  return [inspect(thing, { depth: 10 }), inspect(thing, { showHidden: true, depth: 10 }), JSON.stringify(thing) ?? ""];
}

function surfaces(error: McpToolError, options: ModelTextOptions, args: unknown): string[] {
  const reply = toModelReply(error, options);
  const safe = redactError(error, options);
  return [
    reply.text,
    ...printed(reply.artifact),
    handleError(error, options),
    wrapToolError(error, "query", args, options),
    ...printed(safe),
    String(safe),
    String(safe.stack),
    ...printed({ type: "error", toolName: "query", serverName: "db", error: safe }),
    ...printed(redactError(safe.with({ attempts: 2 }), options)),
  ];
}

function expectValid(e: unknown): asserts e is McpToolError {
  expect(isMcpToolError(e)).toBe(true);
  const error = e as McpToolError;
  expect(error).toBeInstanceOf(McpToolError);
  expect(isReason(error.reason)).toBe(true);
  expect(["protocol", "transport", "domain", "client"]).toContain(error.kind);
  expect(["not_sent", "unknown", "executed"]).toContain(error.outcome);
  expect(typeof error.transient).toBe("boolean");
  expect(typeof error.message).toBe("string");
  expect(Number.isInteger(error.attempts) && error.attempts >= 1).toBe(true);
}

// --- Hostile input --------------------------------------------------------------------------

const hostile: unknown[] = [
  new Proxy({}, { get: () => { throw new Error("get trap"); }, has: () => { throw new Error("has trap"); }, getOwnPropertyDescriptor: () => { throw new Error("gopd trap"); }, ownKeys: () => { throw new Error("ownKeys trap"); }, getPrototypeOf: () => { throw new Error("proto trap"); } }),
  (() => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  })(),
  Object.defineProperty(new Error("x"), "message", { get: () => { throw new Error("message getter"); } }),
  Object.defineProperty({}, "code", { get: () => { throw new Error("code getter"); }, enumerable: true }),
  { toString: () => { throw new Error("toString"); }, [Symbol.toPrimitive]: () => { throw new Error("toPrimitive"); } },
  Object.create(null),
  Symbol("s"),
  10n,
  { message: Symbol("m"), code: {}, data: 10n },
  (() => {
    const cyclic: Record<string, unknown> = { message: "loop" };
    cyclic.cause = cyclic;
    cyclic.data = cyclic;
    return Object.assign(new Error("loop"), { cause: cyclic });
  })(),
];

describe("normalize, over anything", () => {
  it("never throws and always gives a valid McpToolError, for hostile objects too", () => {
    for (const thing of hostile) {
      const e = normalize(thing);
      expectValid(e);
      expect(() => toModelReply(e)).not.toThrow();
      expect(() => redactError(e)).not.toThrow();
    }
  });

  it("never throws and always gives a valid McpToolError, for generated errors, results and contexts", () => {
    fc.assert(
      fc.property(scenario, ({ thrown, context }) => {
        const e = normalize(thrown, context);
        expectValid(e);
        expectValid(redactError(e));
        expect(typeof toModelReply(e).text).toBe("string");
      }),
      params(),
    );
  });
});

/**
 * The library's own words on every surface, for every reason, with nothing of the caller's in
 * them. A generated "secret" that is a piece of these (CI once drew "rguments", from
 * "Arguments: {}") is not something a configuration leaks.
 */
const OWN_WORDS = Object.keys(REASONS)
  .flatMap((reason) => surfaces(McpToolError.of(reason as keyof typeof REASONS, ""), {}, {}))
  .join("\n");

describe("no configured secret on any surface", () => {
  it("is in the model's text, the artifact, handleError, wrapToolError, the redacted error or an event", () => {
    fc.assert(
      fc.property(scenario, ({ secrets, thrown, context, args }) => {
        const options = optionsOf(secrets.config);
        const error = normalize(thrown, context);
        const leakable = secrets.values.filter((secret) => !OWN_WORDS.includes(secret));
        for (const text of surfaces(error, options, args)) for (const secret of leakable) expect(text.includes(secret), `${JSON.stringify(secret)} in:\n${text}`).toBe(false);
      }),
      params(),
    );
  });

  describe("on spans", () => {
    let sdk: TestSdk;
    beforeAll(() => {
      sdk = registerSdk();
    });
    afterAll(async () => {
      await sdk.shutdown();
    });

    it("is in no span's status, attributes or events", async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async ({ secrets, thrown, context }) => {
          const options = optionsOf(secrets.config);
          const error = normalize(thrown, context);
          const hub = new EventHub();
          const telemetry = new ToolkitTelemetry(hub, { redact: (e) => redactError(e, options) });
          const call = { toolName: "query", serverName: "db" };
          sdk.reset();
          await telemetry.call(call, () => telemetry.attempt(call, 1, () => Promise.reject(error))).catch(() => undefined);
          const spans = sdk.spans();
          expect(spans.length).toBe(2);
          expect(spans.every((s) => s.status.code === 2)).toBe(true);
          const text = JSON.stringify(spans.map((s) => ({ attributes: s.attributes, status: s.status, events: s.events.map((e) => [e.name, e.attributes]) })));
          for (const secret of secrets.values) expect(text.includes(secret), `${JSON.stringify(secret)} in:\n${text}`).toBe(false);
        }),
        params(Math.ceil(RUNS / 2)),
      );
    });
  });
});
