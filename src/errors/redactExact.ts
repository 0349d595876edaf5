/**
 * Exact values to redact: the configured secrets (and a caller's string patterns) in each form
 * they may take in text, and their replacement wherever they stand.
 */
import { MIN_SECRET_LENGTH, REDACTED, type RedactOptions } from "./redactOptions.js";

/**
 * Every exact value to remove: the configured secrets and the caller's string patterns,
 * each also as it appears trimmed, JSON-escaped and URL-encoded. Longest first.
 */
export function exactValues(options: RedactOptions): readonly string[] {
  const raw: string[] = [...(options.secrets ?? [])];
  for (const p of options.patterns ?? []) if (typeof p === "string") raw.push(p);
  if (raw.length === 0) return [];
  const cached = exactCache.get(options.secrets ?? options.patterns!);
  if (cached && sameValues(cached.raw, raw)) return cached.values;
  const all = new Set<string>();
  for (const s of raw) {
    if (typeof s !== "string") continue;
    for (const v of [s, s.trim(), JSON.stringify(s).slice(1, -1), safeEncode(s)]) {
      if (v.length >= MIN_SECRET_LENGTH) all.add(v);
    }
  }
  const values = [...all].sort((a, b) => b.length - a.length);
  exactCache.set(options.secrets ?? options.patterns!, { raw, values });
  return values;
}

// A toolkit hands the same secrets list to every failed call; its variants are worked out once.
// The entry is checked against the list's current contents, so a list changed in place is
// never redacted with stale values.
const exactCache = new WeakMap<readonly unknown[], { raw: string[]; values: string[] }>();

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Replaces every occurrence of every value, merging overlapping and adjacent ones. */
export function redactExact(text: string, values: readonly string[]): string {
  const spans: Array<[number, number]> = [];
  for (const v of values) {
    if (v.length < MIN_SECRET_LENGTH) continue;
    let start = -1;
    let end = -1;
    for (let i = text.indexOf(v); i !== -1; i = text.indexOf(v, i + 1)) {
      if (i <= end) {
        end = i + v.length;
      } else {
        if (start !== -1) spans.push([start, end]);
        start = i;
        end = i + v.length;
      }
    }
    if (start !== -1) spans.push([start, end]);
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  let i = 0;
  while (i < spans.length) {
    const [s] = spans[i]!;
    let e = spans[i]![1];
    for (i++; i < spans.length && spans[i]![0] <= e; i++) e = Math.max(e, spans[i]![1]);
    out += text.slice(at, s) + REDACTED;
    at = e;
  }
  return out + text.slice(at);
}

function safeEncode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s; // a lone surrogate cannot be encoded
  }
}
