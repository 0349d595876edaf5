/**
 * Which configured values the one redaction removes. A server's env is where its credentials go,
 * under any name: every env value is redacted unless it reads as a setting (ERRORS.md: never
 * `true`, `production`, `application/json` or a path).
 */
import { describe, expect, it } from "vitest";
import type { McpToolkitConfig } from "../../src/config/index.js";
import { redactionOf } from "../../src/config/secrets.js";
import { safeMessage } from "../../src/errors/text.js";

const withEnv = (env: Record<string, string>): McpToolkitConfig => ({ servers: { s: { transport: "stdio", command: "srv", env } } });

describe("env values", () => {
  it("are redacted under any name, unless they read as a setting", () => {
    const secret = {
      DB_CONN: "postgres://app:s3cretpw@db/x",
      TENANT_REF: "acct7QpX2zz",
      REGION_KEY_ID: "hunter2",
      SLACK_HOOK: "https://hooks.slack.com/services/T0/B0/xyzzy42",
      DSN: "Server=db;Uid=app;Pwd=pa55;",
    };
    const ordinary = {
      NODE_ENV: "production",
      USE_AUTH: "true",
      PORT: "8080",
      CONTENT: "application/json",
      ROOT: "/srv/data",
      FORMAT: "json",
      OTEL_ENDPOINT: "http://collector:4318",
    };
    const options = redactionOf(withEnv({ ...secret, ...ordinary }));
    for (const value of Object.values(secret)) expect(safeMessage(`saw ${value} there`, options), value).toBe("saw [REDACTED] there");
    for (const value of Object.values(ordinary)) expect(safeMessage(`saw ${value} there`, options), value).toBe(`saw ${value} there`);
  });

  it("are read from a configuration that failed validation, so its error cannot echo them", () => {
    const options = redactionOf({ servers: { s: { transport: "stdio", env: { TOKEN: "acct7QpX2zz", BAD: 3 } } }, errors: { redact: ["extra-one", 5] } });
    expect(safeMessage("acct7QpX2zz extra-one", options)).toBe("[REDACTED] [REDACTED]");
  });
});
