/**
 * Issue 35: redacting `key=value` took the punctuation that closes the sentence with the
 * value ("failed (token=abc123)." lost its ")."). The value goes; the sentence stays.
 */
import { describe, expect, it } from "vitest";
import { redact } from "../../src/errors/redact.js";

describe("a key=value secret at the end of a clause", () => {
  it.each([
    ["failed (token=abc123).", "failed (token=[REDACTED])."],
    ["login failed: password=hunter2.", "login failed: password=[REDACTED]."],
    ["bad key (api_key=sk_live_abc123)! try again", "bad key (api_key=[REDACTED])! try again"],
    ["secret=abc123?", "secret=[REDACTED]?"],
  ])("%s keeps its closing punctuation", (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it("still takes a value's own dots and brackets", () => {
    expect(redact("token=eyJhbGci.eyJzdWIi.c2lnbmF0dXJl failed")).toBe("token=[REDACTED] failed");
    expect(redact("password=pa(ss)word")).toBe("password=[REDACTED]");
    expect(redact("password=p.a.s.s.")).toBe("password=[REDACTED].");
  });

  it("leaves a key whose value is only punctuation alone", () => {
    expect(redact("token=).")).toBe("token=).");
  });

  it("redacts twice to the same text", () => {
    const once = redact("failed (token=abc123).");
    expect(redact(once)).toBe(once);
  });
});
