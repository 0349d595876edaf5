/**
 * Which of a toolkit's calls carry an idempotency key, and the schema the model sees for a tool
 * that takes one: the key is the toolkit's to make, never the model's to invent.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { IDEMPOTENCY_CAPABILITY, KEY_PROPERTIES } from "../errors/idempotency.js";
import type { Connection } from "../mcp/session/Connection.js";

/**
 * The tool's key property: the one its policy names, else `idempotency_key` or `idempotencyKey`
 * when its input schema has one; `undefined` when its policy says `false` or it has none.
 */
export function keyPropertyOf(tool: Pick<Tool, "inputSchema">, configured: string | false | undefined): string | undefined {
  if (configured !== undefined) return configured === false ? undefined : configured;
  const properties = tool.inputSchema?.properties;
  if (typeof properties !== "object" || properties === null) return undefined;
  return KEY_PROPERTIES.find((name) => Object.hasOwn(properties, name));
}

/** The input schema without the key property (and without it among the required), for the model. */
export function withoutKeyProperty<S extends Record<string, unknown>>(schema: S, property: string): S {
  const properties = schema.properties as Record<string, unknown> | undefined;
  const required = schema.required as unknown;
  const listed = typeof properties === "object" && properties !== null && Object.hasOwn(properties, property);
  const needed = Array.isArray(required) && required.includes(property);
  if (!listed && !needed) return schema;
  const out: Record<string, unknown> = { ...schema };
  if (listed) {
    const { [property]: _key, ...rest } = properties!;
    out.properties = rest;
  }
  if (needed) out.required = (required as unknown[]).filter((name) => name !== property);
  return out as S;
}

/**
 * Has the server, as connected now, declared that it honours the key in `_meta` for every tool?
 * Asked at each send: a server may lose the capability across a restart, and a send that goes
 * out before a connection is made does not count on it.
 */
export function honoursKeys(connection: Connection): boolean {
  const experimental = connection.current()?.client.getServerCapabilities()?.experimental as Record<string, unknown> | undefined;
  return experimental !== undefined && experimental !== null && experimental[IDEMPOTENCY_CAPABILITY] !== undefined;
}
