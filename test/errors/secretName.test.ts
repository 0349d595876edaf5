/**
 * The one rule for what names a secret, and the two places that read it agreeing: the
 * configuration's secrets (collectSecrets) and the redaction of `key=value` text and of values.
 */
import { describe, expect, it } from "vitest";
import { collectSecrets } from "../../src/config/secrets.js";
import { redact, redactValue, REDACTED } from "../../src/errors/redact.js";
import { isSecretName, nameWords, SECRET_NAME_HINT } from "../../src/errors/secretName.js";

export const SECRET_NAMES = [
  "password",
  "DB_PASS",
  "REDIS_PASS",
  "PGPASSWORD",
  "MYSQL_PWD",
  "ROOT_PW",
  "dbPass",
  "DBPass",
  "db-pass",
  "db.pass",
  "userpass",
  "passwd",
  "passphrase",
  "password2",
  "apiKey",
  "api_key",
  "X-Api-Key",
  "x-apikey",
  "APIKEY",
  "OPENAI_API_KEY",
  "AWS_SECRET_ACCESS_KEY",
  "PRIVATE_KEY",
  "privateKey",
  "api_keys",
  "client_secret",
  "clientSecret",
  "SECRET_KEY_BASE",
  "jwt_secret",
  "refreshToken",
  "access_token",
  "GITHUB_TOKEN",
  "x-auth-token",
  "pin_token",
  "Authorization",
  "Proxy-Authorization",
  "Cookie",
  "Set-Cookie",
  "session_id",
  "sessionId",
  "mcp-session-id",
  "PHPSESSID",
  "x-amz-signature",
  "sig",
  "credentials",
  "GOOGLE_CREDS",
  "basicAuth",
  "auth",
  "otp",
];

export const ORDINARY_NAMES = [
  "author",
  "authority",
  "passenger",
  "passengers",
  "passage",
  "bypass",
  "BYPASS_CACHE",
  "compass",
  "keyboard",
  "keyword",
  "key",
  "sort_key",
  "cache_key",
  "primary_key",
  "max_tokens",
  "maxTokens",
  "completion_tokens",
  "tokenizer",
  "secretary",
  "token_url",
  "TOKEN_URL",
  "AUTH_URL",
  "API_KEY_FILE",
  "SESSION_TIMEOUT",
  "token_type",
  "AUTH_ENABLED",
  "invalid_token",
  "token_expired",
  "oauth_client_id",
  "NODE_ENV",
  "DISABLE_THOUGHT_LOGGING",
  "private",
  "is_private",
  "sessions",
  "credit",
  "signed",
];

describe("isSecretName", () => {
  it.each(SECRET_NAMES)("says %s names a secret", (name) => {
    expect(isSecretName(name)).toBe(true);
    // The cheap pre-scan must never skip a name the rule accepts.
    expect(SECRET_NAME_HINT.test(name)).toBe(true);
  });

  it.each(ORDINARY_NAMES)("says %s does not", (name) => {
    expect(isSecretName(name)).toBe(false);
  });

  it("reads camelCase, snake_case, kebab-case, dots and digits as the same words", () => {
    for (const name of ["dbPass", "DB_PASS", "db-pass", "db.pass", "DBPass"]) expect(nameWords(name)).toEqual(["db", "pass"]);
    expect(nameWords("password2Hash")).toEqual(["password", "2", "hash"]);
  });
});

describe("one rule for the configuration and for text", () => {
  it.each([...SECRET_NAMES, ...ORDINARY_NAMES])("decides %s the same way in an env, a header, a flag, key=value text and arguments", (name) => {
    const value = "plainwordvalue";
    const secret = isSecretName(name);
    const collected = collectSecrets({
      servers: {
        s: { transport: "stdio", command: "x", args: [`--${name}`, value], env: { [name]: value } },
        h: { transport: "http", url: "http://127.0.0.1:1/mcp", headers: { [name]: value } },
      },
    });
    expect(collected.words.includes(value), "collected").toBe(secret);
    expect(redact(`${name}=${value}`) === `${name}=${REDACTED}`, "key=value").toBe(secret);
    expect((redactValue({ [name]: value }) as Record<string, unknown>)[name] === REDACTED, "arguments").toBe(secret);
  });

  it("collects the values of DB_PASS and REDIS_PASS, which once passed one of two rules", () => {
    const { secrets, words } = collectSecrets({
      servers: { db: { transport: "stdio", command: "x", env: { DB_PASS: "hunter2hunter", REDIS_PASS: "r3d1s-pa55!" } } },
    });
    expect(words).toContain("hunter2hunter");
    expect(secrets).toContain("r3d1s-pa55!");
  });

  it("keeps a flag's state and a path to a key file readable under a secret name", () => {
    const { secrets, words } = collectSecrets({
      servers: { s: { transport: "stdio", command: "x", args: ["--ssh-key", "/home/me/.ssh/id_ed25519"], env: { USE_AUTH: "true", PRIVATE_KEY: "./keys/server.pem" } } },
    });
    expect([...secrets, ...words]).toEqual([]);
  });

  it("collects the password of a URL in any env value", () => {
    const { secrets, words } = collectSecrets({ servers: { s: { transport: "stdio", command: "x", env: { DATABASE_URL: "postgres://app:pg-pw-4711@db:5432/app" } } } });
    expect([...secrets, ...words]).toContain("pg-pw-4711");
  });
});
