/**
 * Our toolkit as a client under the MCP conformance suite (`@modelcontextprotocol/conformance`):
 * the suite starts a scenario's server and runs this file with its URL as the last argument,
 * the scenario's name in MCP_CONFORMANCE_SCENARIO, the protocol revision to speak in
 * MCP_CONFORMANCE_PROTOCOL_VERSION and any credentials in MCP_CONFORMANCE_CONTEXT.
 *
 * It connects, calls every tool the server offers (with the arguments a scenario's tool needs)
 * and answers every elicitation by accepting the form's defaults. When the server declared
 * resources or prompts, it then does what an application does with `toolkit.resources` and
 * `toolkit.prompts`: lists every page, reads each resource (and each template, its variables
 * filled), and gets each prompt with a value for each argument it declares; a failure is
 * printed, not thrown, as the application would catch it. Behind OAuth it does what an
 * app does: when the connect or a call fails `unauthorized` (or `forbidden`, a step-up) after
 * the SDK sent the user to authorize, it redeems the code the callback got and tries again.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { McpToolkit, type McpToolErrorJSON, type McpToolkitConfig } from "../../src/index.js";
import { ApprovingProvider, providerFor, type ScenarioContext } from "./oauth.js";

const url = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as ScenarioContext;
const revision = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
/** How many times a connect or a call may go back for authorization. */
const AUTH_ROUNDS = 3;

/** What a scenario's tools need where a value made from the schema will not do. */
const ARGS: Record<string, Record<string, unknown>> = {
  add_numbers: { a: 5, b: 3 },
  // SEP-2243: arguments mirrored into Mcp-Param headers, plain and in need of Base64.
  test_custom_headers: {
    region: "us-west1",
    priority: 5,
    verbose: false,
    debug: true,
    empty_val: "",
    method_val: "GET",
    float_val: 1.5,
    non_ascii_val: "Zürich 東京",
    whitespace_val: "  padded  ",
    leading_space_val: " leading",
    trailing_space_val: "trailing ",
    internal_space_val: "internal spaces only",
    control_char_val: "bell\u0007here",
    crlf_val: "line\r\nbreak",
    tab_val: "\ttabbed",
    query: "conformance",
  },
  // A model in strict function-calling mode sends null for an optional argument it leaves out.
  test_custom_headers_null: { region: "us-west1", priority: 5, verbose: null, query: "conformance" },
};

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; required?: string[]; enum?: unknown[]; const?: unknown; format?: string; default?: unknown };

/** A value for every required property, of the type the schema asks for. */
function fill(schema: JsonSchema | undefined): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const name of schema?.required ?? []) args[name] = valueFor(schema?.properties?.[name] ?? {});
  return args;
}

function valueFor(schema: JsonSchema): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return true;
  if (type === "array") return [];
  if (type === "object") return fill(schema);
  return schema.format === "email" ? "conformance@example.com" : "conformance";
}

/** The arguments for one tool; the schema-echo tool gets the schema the other tool was listed with, as the toolkit holds it. */
function argsFor(name: string, tools: { name: string; schema: unknown }[]): Record<string, unknown> {
  if (ARGS[name]) return ARGS[name];
  if (name === "json_schema_echo") return { schema: tools.find((t) => t.name === "json_schema_2020_12_tool")?.schema };
  return fill(tools.find((t) => t.name === name)?.schema as JsonSchema | undefined);
}

const authProvider = scenario.startsWith("auth/") ? providerFor({ name: scenario, ...context }) : undefined;
const server: Extract<McpToolkitConfig["servers"][string], { transport: "http" }> = {
  transport: "http",
  url,
  // A dated 2025 revision opens a session with initialize; 2026-07-28 is stateless.
  era: revision === undefined ? "auto" : revision.startsWith("2026") ? "modern" : "legacy",
  inputHandler: { elicit: async () => ({ action: "accept", content: {} }) },
  ...(authProvider ? { authProvider } : {}),
};

/** Redeems a code the SDK's last authorization got, when `error` is one an authorization may cure. */
async function reauthorized(error: { reason?: string } | undefined): Promise<boolean> {
  if (!(authProvider instanceof ApprovingProvider)) return false;
  if (error?.reason !== "unauthorized" && error?.reason !== "forbidden") return false;
  return authProvider.redeem(url);
}

async function connect(): Promise<McpToolkit> {
  for (let round = 1; ; round++) {
    try {
      return await McpToolkit.connect({ servers: { scenario: server }, retry: { retries: 0 } });
    } catch (error) {
      if (round >= AUTH_ROUNDS || !(await reauthorized(error as { reason?: string }))) throw error;
    }
  }
}

/** A template's URI with every RFC 6570 variable set to "conformance" (a template has no declared values to take). */
function expand(uriTemplate: string): string {
  return uriTemplate.replace(/\{[+#./;?&]?([^}]+)\}/g, (_, names: string) => names.split(",").map(() => "conformance").join(","));
}

/** Why a request failed, in one line: the classified reason when it is an McpToolError. */
function failure(error: unknown): string {
  const e = error as { reason?: string; message?: string };
  return `${e.reason ?? "error"}: ${String(e.message).slice(0, 200)}`;
}

/** Resources and prompts as application code uses them; servers that declared neither are left out of both lists, so nothing is sent. */
async function resourcesAndPrompts(toolkit: McpToolkit): Promise<void> {
  const { resources, templates, failures } = await toolkit.resources.list();
  for (const f of failures) console.log(`resources/list [error]: ${failure(f.error)}`);
  const uris = [...resources.map((r) => r.uri), ...templates.map((t) => expand(t.uriTemplate))];
  for (const uri of uris) {
    try {
      const docs = await toolkit.resources.read("scenario", uri);
      console.log(`resources/read ${uri} [ok]: ${docs.length} document(s)`);
    } catch (error) {
      console.log(`resources/read ${uri} [error]: ${failure(error)}`);
    }
  }
  const prompts = await toolkit.prompts.list();
  for (const f of prompts.failures) console.log(`prompts/list [error]: ${failure(f.error)}`);
  for (const prompt of prompts.prompts) {
    const args = Object.fromEntries(prompt.arguments.map((a) => [a.name, "conformance"]));
    try {
      const messages = await toolkit.prompts.get("scenario", prompt.name, args);
      console.log(`prompts/get ${prompt.name} [ok]: ${messages.length} message(s)`);
    } catch (error) {
      console.log(`prompts/get ${prompt.name} [error]: ${failure(error)}`);
    }
  }
}

const toolkit = await connect();
try {
  const tools = toolkit.getTools();
  for (const tool of tools) {
    for (let round = 1; ; round++) {
      const reply = (await tool.invoke({ id: tool.name, name: tool.name, args: argsFor(tool.name, tools), type: "tool_call" })) as ToolMessage;
      const error = reply.status === "error" ? (reply.artifact as McpToolErrorJSON) : undefined;
      if (round < AUTH_ROUNDS && (await reauthorized(error))) continue;
      console.log(`${tool.name} [${reply.status}]: ${String(reply.content).slice(0, 300)}`);
      break;
    }
  }
  await resourcesAndPrompts(toolkit);
} finally {
  await toolkit.close();
}
