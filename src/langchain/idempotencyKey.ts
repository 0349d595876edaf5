/**
 * Which of a toolkit's calls carry an idempotency key, and the schema the model sees for a tool
 * that takes one: the key is the toolkit's to make, never the model's to invent.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { KEY_PROPERTIES } from "../errors/idempotency.js";

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
