/**
 * URI templates (RFC 6570) as the SDK's `UriTemplate` reads them: filled in with variables, and
 * matched against a URI. One home for both, for the model's read tool, the retriever and the pins.
 */
import { UriTemplate } from "@modelcontextprotocol/client";
import { McpToolError } from "../errors/McpToolError.js";

/** The values of a template's `{variables}`. */
export type TemplateVariables = Record<string, string | string[]>;

/** Does `uri` hold a template expression (`{…}`)? */
export function isTemplate(uri: string): boolean {
  return /\{[^}]+\}/.test(uri);
}

/** `template` filled with `variables`; a URI without expressions as it is. An expansion that fails is `invalid_arguments`, naming `toolName`. */
export function expandTemplate(template: string, variables: TemplateVariables, toolName: string): string {
  if (!isTemplate(template)) return template;
  try {
    return new UriTemplate(template).expand(variables);
  } catch (error) {
    throw McpToolError.of("invalid_arguments", `The uri template '${template}' could not be expanded: ${error instanceof Error ? error.message : String(error)}`, { toolName, cause: error });
  }
}

/** The names of a template's variables, in order. */
export function variablesOf(template: string): string[] {
  try {
    return new UriTemplate(template).variableNames;
  } catch {
    return [];
  }
}

/** Does `uri` fit the template? A template the SDK cannot read fits nothing. */
export function matchesTemplate(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}
