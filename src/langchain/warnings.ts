/**
 * Warnings reach a person. A `toolFilter` typo leaves the agent with no tools, and as an event
 * that nobody subscribed to it was never seen; so a warning no listener hears is printed, as
 * `loadMcpConfig` prints its own. Listening for `warning` events (or `warnings: "silent"`) turns
 * it off: the listener decides where they go.
 */
import { DEFAULT_TOOLKIT_OPTIONS, type McpToolkitConfig } from "../config/index.js";
import type { WarningEvent } from "../events.js";
import { platform } from "../platform/index.js";

/** The name a toolkit's warnings print under: `(node:1234) McpToolkitWarning: tools.serach: …` on Node. */
export const WARNING_NAME = "McpToolkitWarning";

/**
 * Prints each distinct warning (by field and message) once: a toolkit's, through `warn` (the
 * platform's: `process.emitWarning` on Node, `console.warn` elsewhere). The event is the hub's
 * redacted copy, so what is printed has passed the toolkit's redaction.
 */
export function printOnce(warn: (message: string, type: string) => void): (event: WarningEvent) => void {
  const printed = new Set<string>();
  return ({ field, message }) => {
    const text = `${field}: ${message}`;
    if (printed.has(text)) return;
    printed.add(text);
    warn(text, WARNING_NAME);
  };
}

/** What a toolkit does with a warning no listener hears, as its `warnings` option says: prints it, or (`"silent"`) nothing. */
export function unheardWarnings(setting: McpToolkitConfig["warnings"]): ((event: WarningEvent) => void) | undefined {
  return (setting ?? DEFAULT_TOOLKIT_OPTIONS.warnings) === "print" ? printOnce(platform.warn) : undefined;
}
