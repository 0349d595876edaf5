const MCP_PREFIX = /^(?:MCP error -?\d+:\s*)+/;

/** Removes the SDK's "MCP error -32602:" prefixes, which servers built on the SDK repeat. */
export function stripMcpPrefix(message: string): string {
  return message.replace(MCP_PREFIX, "");
}

/** The message of anything thrown: an Error's, a string itself, or a record's `message`; else its JSON. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  if (isRecord(error) && typeof error.message === "string") return error.message;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** Any non-null object, so its fields can be read without trusting its type. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** A copy without the keys whose value is `undefined`, so they do not override a spread's earlier values. */
export function dropUndefined<T extends object>(o: T): T {
  // A fresh object rather than `delete`, which turns an object into a slow dictionary.
  const out = {} as T;
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
