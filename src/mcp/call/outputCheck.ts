/**
 * The client's check of a result against the tool's `outputSchema`, for the paths where no SDK
 * client checks it: a call run as a task (2025 Tasks and the 2026-07-28 Tasks extension read
 * their result outside `callTool`). The SDK's own `callTool` path is checked by the SDK, and
 * classified from its words (classify/jsonrpc.ts); this check says the same thing the same way.
 */
import { Validator, type Schema } from "@cfworker/json-schema";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { McpToolError } from "../../errors/McpToolError.js";
import type { CallContext } from "../../policy/abort.js";

/** One validator per tool definition a listing gave: a new listing brings new definitions. */
const validators = new WeakMap<Tool, Validator>();

/** `undefined` when the result is an error, or the tool has no output schema, or its structured content fits it. */
export function outputMismatch(tool: Tool | undefined, result: CallToolResult, context: CallContext & { attempts?: number }): McpToolError | undefined {
  const schema = tool?.outputSchema;
  if (!tool || !schema || result.isError === true) return undefined;
  const here = { ...context, outcome: "executed" as const };
  if (result.structuredContent === undefined) {
    return McpToolError.of("output_schema_mismatch", `Tool ${tool.name} has an output schema but did not return structured content.`, here);
  }
  let validator = validators.get(tool);
  if (!validator) {
    // Lenient as the SDK's check is: the schema's own draft, unknown keywords ignored, every error.
    validator = new Validator(schema as Schema, "2020-12", false);
    validators.set(tool, validator);
  }
  const { valid, errors } = validator.validate(result.structuredContent);
  if (valid) return undefined;
  const first = errors.find((e) => e.instanceLocation !== "#") ?? errors[0];
  const where = first ? ` at ${first.instanceLocation.replace(/^#\/?/, "") || "the top"}: ${first.error}` : "";
  return McpToolError.of("output_schema_mismatch", `Structured content does not match the tool's output schema${where}.`, here);
}
