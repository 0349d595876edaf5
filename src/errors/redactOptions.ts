/**
 * What a redaction is told (redact.ts, redactExact.ts) and what it leaves in a secret's place:
 * in a file of their own, which both read, so neither of the two imports the other for them.
 */

export const REDACTED = "[REDACTED]";

/** Exact values shorter than this would redact ordinary words; they are not worth the noise. */
export const MIN_SECRET_LENGTH = 4;

export interface RedactOptions {
  /**
   * Exact values to remove wherever they appear (header values, env values), also as they
   * appear trimmed, JSON-escaped or URL-encoded. Values under 4 characters are ignored.
   */
  secrets?: readonly string[];
  /**
   * Secret values that read like ordinary words (a password such as `admin`): removed only
   * where they stand as a whole token, never from inside another word.
   */
  words?: readonly string[];
  /** Extra patterns; a string is matched literally, a RegExp everywhere (as if it had the g flag). */
  patterns?: readonly (string | RegExp)[];
}
