/**
 * Secret redaction, one shape at a time, and the words it must leave alone. The secrets
 * here are made up but have the real shapes.
 */
import { describe, expect, it } from "vitest";
import { redact, REDACTED, redactValue } from "../../src/errors/redact.js";

const b64url = (s: string) => Buffer.from(s).toString("base64url");

describe("built-in secret shapes", () => {
  it("redacts a Bearer token and keeps the scheme readable", () => {
    expect(redact("Authorization: Bearer abc123def456ghi789jkl")).toBe("Authorization: Bearer [REDACTED]");
    expect(redact("sent Bearer abc123def456ghi789jkl to the server")).toBe("sent Bearer [REDACTED] to the server");
  });

  it("redacts a bearer token whatever the scheme's case", () => {
    expect(redact("authorization: bearer abc123def456ghi789")).toBe("authorization: bearer [REDACTED]");
    expect(redact("got BEARER abc123def456ghi789")).toBe("got BEARER [REDACTED]");
  });

  it("redacts a letters-only bearer token of 20 characters or more", () => {
    expect(redact("Bearer abcdefghijklmnopqrstuvwxyz")).toBe("Bearer [REDACTED]");
  });

  it("redacts Basic credentials", () => {
    const basic = Buffer.from("alice:correct horse").toString("base64");
    expect(redact(`Authorization: Basic ${basic}`)).toBe("Authorization: Basic [REDACTED]");
    expect(redact(`retrying with Basic ${basic}`)).toBe("retrying with Basic [REDACTED]");
  });

  it("leaves prose about auth schemes alone", () => {
    for (const prose of ["Basic authentication failed", "Bearer token missing", "Token expired", "the Bearer authentication scheme is required"]) {
      expect(redact(prose)).toBe(prose);
    }
  });

  it("redacts a JWT, signed or not", () => {
    const header = b64url('{"alg":"HS256","typ":"JWT"}');
    const payload = b64url('{"sub":"1234567890","name":"Alice"}');
    const jwt = `${header}.${payload}.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c`;
    expect(redact(`invalid token ${jwt} for user`)).toBe("invalid token [REDACTED] for user");
    expect(redact(`unsigned ${header}.${payload}. here`)).toBe("unsigned [REDACTED] here");
    expect(redact(`cut ${header}.${payload}`)).toBe("cut [REDACTED]");
  });

  it.each([
    ["an OpenAI key (sk-)", "sk-abcdefghijklmnopqrstuvwxyz012345"],
    ["an Anthropic key (sk-ant-)", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz_0123456789-AAAA"],
    ["an OpenAI project key (sk-proj-)", "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789_-abc"],
  ])("redacts %s", (_name, key) => {
    expect(redact(`invalid api key ${key}, check it`)).toBe("invalid api key [REDACTED], check it");
    expect(redact(`"${key}"`)).toBe('"[REDACTED]"');
  });

  it("redacts GitHub tokens (ghp_, gho_, github_pat_)", () => {
    expect(redact("token ghp_abcdefghijklmnopqrstuvwxyz0123456789 rejected")).toBe("token [REDACTED] rejected");
    expect(redact("gho_abcdefghijklmnopqrstuvwxyz0123456789")).toBe(REDACTED);
    expect(redact("pat github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123 bad")).toBe(
      "pat [REDACTED] bad",
    );
  });

  it("redacts an AWS access key id, even glued to the next word", () => {
    expect(redact("key AKIAIOSFODNN7EXAMPLE is not valid")).toBe("key [REDACTED] is not valid");
    expect(redact("ASIAIOSFODNN7EXAMPLE")).toBe(REDACTED);
    expect(redact("id=AKIAIOSFODNN7EXAMPLE_backup")).toBe("id=[REDACTED]_backup");
  });

  it("redacts Slack tokens (xoxb-, xoxp-)", () => {
    expect(redact("slack said invalid_auth for xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp")).toBe("slack said invalid_auth for [REDACTED]");
    expect(redact("xoxp-1234567890-abcdefghij")).toBe(REDACTED);
  });

  it("redacts a PEM private key, even one cut before its end line", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc==\n-----END RSA PRIVATE KEY-----";
    expect(redact(`bad key:\n${pem}\ndone`)).toBe("bad key:\n[REDACTED]\ndone");
    expect(redact("key: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B")).toBe("key: [REDACTED]");
  });
});

describe("credentials in URLs", () => {
  it("redacts user:password in https://user:pass@host", () => {
    expect(redact("GET https://user:pass@host.example.com/path failed")).toBe("GET https://[REDACTED]@host.example.com/path failed");
  });

  it("redacts them in any scheme, including a password with an unencoded @", () => {
    expect(redact("postgres://admin:s3cr3t@db:5432/app")).toBe("postgres://[REDACTED]@db:5432/app");
    expect(redact("https://bob:p@ssw0rd@host/x")).toBe("https://[REDACTED]@host/x");
  });

  it("redacts a long token used alone as the user name", () => {
    expect(redact("clone https://abcdef0123456789abcdef@git.example.com/repo.git")).toBe("clone https://[REDACTED]@git.example.com/repo.git");
  });

  it("leaves URLs without credentials alone", () => {
    for (const url of ["http://localhost:8080/mcp", "ssh://git@github.com/org/repo", "https://example.com/a@b", "https://example.com?q=a:b@c"]) {
      expect(redact(url)).toBe(url);
    }
  });

  // Found by the property test: cleaning "+\u001b( \u001b[1mhttps://…" eats the space and
  // glues the "+" to the scheme. A digit, "+", "." or "-" may precede a scheme but not start one.
  it("redacts them after a digit, '+', '.' or '-' glued to the scheme, and keeps that character", () => {
    expect(redact("+https://80c1QwIC:YwDIqmFC319c4XtxhN@db.example.com/")).toBe("+https://[REDACTED]@db.example.com/");
    for (const glue of ["1", "+", "-", ".", "..", "2+"]) {
      expect(redact(`${glue}https://user:s3cr3tpass@db.example.com/`)).toBe(`${glue}https://[REDACTED]@db.example.com/`);
      expect(redact(`${glue}postgres://abcdef0123456789abcdef@db/app`)).toBe(`${glue}postgres://[REDACTED]@db/app`);
      expect(redact(`${glue}http://localhost:8080/mcp`)).toBe(`${glue}http://localhost:8080/mcp`);
    }
  });
});

describe("secret-named keys in arguments", () => {
  it.each(["password", "apiKey", "api_key", "token", "access_token", "client_secret", "Authorization", "X-Api-Key", "refreshToken", "cookie", "basicAuth", "passwd"])(
    "redacts the value under %s at the top level and deep down",
    (key) => {
      const args = { [key]: "v-0123456789", nested: [{ deeper: { deepest: { [key]: "v-0123456789", keep: "me" } } }] };
      expect(redactValue(args)).toEqual({
        [key]: REDACTED,
        nested: [{ deeper: { deepest: { [key]: REDACTED, keep: "me" } } }],
      });
    },
  );

  it("redacts the Authorization header inside headers, leaving the others", () => {
    expect(redactValue({ headers: { Authorization: "Bearer x", "Content-Type": "application/json" } })).toEqual({
      headers: { Authorization: REDACTED, "Content-Type": "application/json" },
    });
  });

  it("redacts a whole object or array kept under a secret-named key", () => {
    expect(redactValue({ credentials: { user: "bob", pw: "hunter2" }, api_keys: ["a1", "b2"] })).toEqual({ credentials: REDACTED, api_keys: REDACTED });
  });

  it("redacts numbers and booleans under secret-named keys, and keeps null and undefined", () => {
    expect(redactValue({ pin_token: 1234, secret: true, password: null, token: undefined })).toEqual({
      pin_token: REDACTED,
      secret: REDACTED,
      password: null,
      token: undefined,
    });
  });

  it("redacts secret shapes inside ordinary string values", () => {
    expect(redactValue({ note: "use Bearer abc123def456ghi789", list: ["sk-abcdefghijklmnopqrstuvwxyz"] })).toEqual({
      note: "use Bearer [REDACTED]",
      list: [REDACTED],
    });
  });

  it("does not change its input", () => {
    const args = { password: "hunter22", nested: { token: "t-0123456789" } };
    const before = structuredClone(args);
    redactValue(args);
    expect(args).toEqual(before);
  });

  it("copies a cycle as [Circular] instead of recursing", () => {
    const a: Record<string, unknown> = { name: "a" };
    a.self = a;
    a.list = [a];
    expect(redactValue(a)).toEqual({ name: "a", self: "[Circular]", list: ["[Circular]"] });
  });

  it("copies a __proto__ key as data, redacting inside it, without polluting Object.prototype", () => {
    const args = JSON.parse('{"__proto__": {"polluted": "yes", "password": "hunter22"}, "q": "x"}') as unknown;
    const out = redactValue(args) as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":"yes","password":"[REDACTED]"},"q":"x"}');
  });

  it("redacts a secret-named __proto__-adjacent key and keeps the copy a plain object", () => {
    const args = JSON.parse('{"__proto__": "sk-abcdefghijklmnopqrstuvwxyz", "constructor": {"token": "t"}}') as unknown;
    const out = redactValue(args) as Record<string, unknown>;
    expect(JSON.stringify(out)).toBe('{"__proto__":"[REDACTED]","constructor":{"token":"[REDACTED]"}}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe("key=value and \"key\": \"value\" in text", () => {
  it.each([
    ["password=hunter22 next", "password=[REDACTED] next"],
    ["api_key: abc123 next", "api_key: [REDACTED] next"],
    ['{"client_secret": "xyz 123", "id": 7}', '{"client_secret": "[REDACTED]", "id": 7}'],
    ["{'token': 'abc'}", "{'token': '[REDACTED]'}"],
    ["GET /cb?access_token=abc123&state=ok", "GET /cb?access_token=[REDACTED]&state=ok"],
    ["DB_PASSWORD = s3cr3t; next", "DB_PASSWORD = [REDACTED]; next"],
    ["x-api-key:abc,y:1", "x-api-key:[REDACTED],y:1"],
    ["session_id=abc; Path=/", "session_id=[REDACTED]; Path=/"],
  ])("redacts %j", (text, want) => {
    expect(redact(text)).toBe(want);
  });

  it("redacts JSON escaped inside a string", () => {
    expect(redact('body: "{\\"password\\":\\"hunter22\\",\\"user\\":\\"bob\\"}"')).toBe('body: "{\\"password\\":\\"[REDACTED]\\",\\"user\\":\\"bob\\"}"');
  });

  it("looks past a non-secret key to a secret one in its value", () => {
    expect(redact("user: password=hunter22")).toBe("user: password=[REDACTED]");
  });

  it("redacts all of a value that holds a redacted secret, leaving no piece", () => {
    expect(redact("token=prefix-VALUE0123 end", { secrets: ["VALUE0123"] })).toBe("token=[REDACTED] end");
  });

  it("keeps an already redacted value as it is", () => {
    expect(redact('password: "[REDACTED]" and token=[REDACTED]')).toBe('password: "[REDACTED]" and token=[REDACTED]');
  });
});

describe("configured exact secrets", () => {
  it("redacts a header value and an env value the configuration sent, wherever they appear", () => {
    const header = "hv-0f1e2d3c4b5a";
    const env = "env-secret-value-42";
    const text = `request with ${header} failed; env ${env}; again ${header}${env}`;
    expect(redact(text, { secrets: [header, env] })).toBe("request with [REDACTED] failed; env [REDACTED]; again [REDACTED]");
  });

  it("redacts overlapping secrets whole, whichever is listed first", () => {
    expect(redact("x abcdefghijkl y", { secrets: ["abcdefgh", "abcdefghijkl"] })).toBe("x [REDACTED] y");
    expect(redact("x abcdefghijkl y", { secrets: ["abcdefgh", "efghijkl"] })).toBe("x [REDACTED] y");
  });

  it("redacts a secret read with surrounding whitespace (a trailing newline from a file)", () => {
    expect(redact("key abc123def456 rejected", { secrets: ["abc123def456\n"] })).toBe("key [REDACTED] rejected");
  });

  it("redacts a secret as it appears JSON-escaped or URL-encoded", () => {
    const s = 'pa"ss\\w/rd@1';
    expect(redact(`{"p":${JSON.stringify(s)}}`, { secrets: [s] })).toBe('{"p":"[REDACTED]"}');
    expect(redact(`?p=${encodeURIComponent(s)}&x=1`, { secrets: [s] })).toBe("?p=[REDACTED]&x=1");
  });

  it("ignores values shorter than 4 characters, which would redact ordinary words", () => {
    expect(redact("the cat sat", { secrets: ["at", "cat", ""] })).toBe("the cat sat");
  });
});

describe("caller patterns", () => {
  it("matches a string pattern literally, regex characters included", () => {
    expect(redact("ids a.b*c and aXbbc", { patterns: ["a.b*c"] })).toBe("ids [REDACTED] and aXbbc");
  });

  it("redacts every match of a RegExp, with or without the g flag", () => {
    expect(redact("acct-1234 and acct-5678", { patterns: [/acct-\d+/] })).toBe("[REDACTED] and [REDACTED]");
    expect(redact("acct-1234 and acct-5678", { patterns: [/acct-\d+/g] })).toBe("[REDACTED] and [REDACTED]");
    expect(redact("ACCT-1234 and acct-5678", { patterns: [/acct-\d+/i] })).toBe("[REDACTED] and [REDACTED]");
  });

  it("is not thrown off by a global RegExp's lastIndex or a sticky flag", () => {
    const g = /acct-\d+/g;
    g.lastIndex = 10;
    expect(redact("acct-1234 and acct-5678", { patterns: [g] })).toBe("[REDACTED] and [REDACTED]");
    expect(redact("acct-1234 and acct-5678", { patterns: [g] })).toBe("[REDACTED] and [REDACTED]");
    expect(redact("x acct-1234 and acct-5678", { patterns: [/acct-\d+/y] })).toBe("x [REDACTED] and [REDACTED]");
  });

  it("ignores the empty matches of a pattern that can match nothing", () => {
    expect(redact("ab xx cd", { patterns: [/x*/] })).toBe("ab [REDACTED] cd");
  });
});

describe("no over-redaction", () => {
  it.each([
    "max_tokens: 500",
    "author: Bob",
    "passenger",
    "passengers: 3",
    "tokenizer: cl100k_base",
    "secretary: Alice",
    "prompt_tokens=12, completion_tokens=30",
    "Invalid token provided",
    "task-1234567890abcdefghijkl",
    "risk-assessment-framework-v2",
    "EURASIANCONTINENTALSHELF",
    "keyboard layout: us",
    "the passage was closed",
  ])("leaves %j alone", (text) => {
    expect(redact(text)).toBe(text);
  });

  it("keeps an error code that names a secret's state readable, and still hides a secret's value", () => {
    expect(redact('WWW-Authenticate: Bearer error="invalid_token", invalid_token: Sign-in required')).toContain("invalid_token: Sign-in required");
    expect(redact("token_expired: please sign in again")).toBe("token_expired: please sign in again");
    expect(redact("access_token: abc123def")).toBe("access_token: [REDACTED]");
    expect(redact("password=hunter2")).toBe("password=[REDACTED]");
  });

  it("leaves harmless argument keys alone", () => {
    const args = { max_tokens: 500, author: "Bob", passenger: "Ann", passengers: 3, maxTokens: 9, tokenizer: "x", secretary: "y", keyword: "z" };
    expect(redactValue(args)).toEqual(args);
  });
});

describe("found by the property tests over every surface", () => {
  it("takes a word-like secret out where an escape sequence stands right before it, as a terminal shows it alone", () => {
    const words = ["hunter2hunter"];
    for (const escape of ["\u001b[0m", "\u001b[1;31m", "\u001b(B", "\u009b33m"]) {
      expect(redact(`a${escape}hunter2hunter b`, { words })).toBe(`a${escape}[REDACTED] b`);
    }
    // Still never inside another word.
    expect(redact("ahunter2hunter b", { words })).toBe("ahunter2hunter b");
  });

  it("redacts a secret a server used as a key of its data, and keeps a BigInt serializable", () => {
    expect(redactValue({ "s3cr3t-value!": 1, big: 10n }, { secrets: ["s3cr3t-value!"] })).toEqual({ [REDACTED]: 1, big: "10" });
  });
});
