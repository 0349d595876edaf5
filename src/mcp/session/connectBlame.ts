/**
 * A failed connect told in the terms of what the person configured: the server by its name and
 * URL, and the field to fix. The SDK's words name its own step ("Version negotiation failed")
 * or a socket ("Connection refused by 127.0.0.1:3000"), which leaves a toolkit of several
 * servers guessing which one failed and why. Only the message changes: the reason, outcome and
 * cause stay as `normalize` classified them, and the text still leaves through the one redaction.
 */
import type { ServerConfig } from "../../config/index.js";
import type { HttpResponseFacts } from "../../errors/classify/context.js";
import { authParams } from "../../errors/classify/http.js";
import { isRecord } from "../../errors/classify/util.js";
import type { McpToolError } from "../../errors/McpToolError.js";
import { isSecretName } from "../../errors/secretName.js";

/** A server's `error_description` longer than this stays out of the line: the field to check matters more. */
const SHORT_DESCRIPTION = 100;

/** `seen`, the classified failure of a connect to `serverName`, worded to blame what a person can fix. */
export function blameConnect(serverName: string, config: ServerConfig, seen: McpToolError, response: HttpResponseFacts | undefined): McpToolError {
  if (!("url" in config)) return seen;
  const url = String(config.url);
  const where = `Server '${serverName}' (${placeOf(url)})`;
  if ((seen.reason === "unauthorized" || seen.reason === "forbidden") && seen.status !== undefined) {
    return seen.with({ message: credentialsRefused(where, seen.status, config, response?.wwwAuthenticate, seen.message) });
  }
  if (seen.reason === "connection_refused") return seen.with({ message: connectionRefused(where, url, seen.message) });
  return seen;
}

/**
 * "Server 'api' (http://…/mcp) refused the credentials (HTTP 401, invalid_token): check
 * headers.Authorization." The challenge's `error` (and a short description) comes from
 * WWW-Authenticate, else from an OAuth-style JSON body; never a header's value. A challenge
 * without an error answers a request that carried no token: with an authProvider, its flow has
 * not finished; without one, no credentials are configured.
 */
function credentialsRefused(where: string, status: number, config: ServerConfig, challenge: string | undefined, message: string): string {
  const header = authParams(challenge);
  const told = header.error || header.description ? header : (toldInBody(message) ?? { description: plainBody(message) });
  const description = told.description && told.description.length <= SHORT_DESCRIPTION && !/["\n]/.test(told.description) ? `"${told.description}"` : undefined;
  const said = [told.error, description].filter((part) => part !== undefined).join(": ");
  const why = `HTTP ${status}${said ? `, ${said}` : ""}`;
  const fields = credentialFields(config);
  const provider = "authProvider" in config && config.authProvider !== undefined;
  const line =
    provider && !told.error && status === 401
      ? `${where} asks for authorization (${why}): finish the authProvider's authorization flow, then connect again.`
      : fields.length === 0
        ? `${where} asks for credentials (${why}) and none are configured: set headers.Authorization (or an authProvider).`
        : `${where} refused the credentials (${why}): check ${fields.join(", ")}.`;
  // The scope as the classifier names it: what a 403 or insufficient_scope lacks, what a first 401 asks for.
  const scope = header.scope;
  if (scope && (status === 403 || told.error === "insufficient_scope")) return `${line} The token needs scope '${scope}'.`;
  if (scope && !told.error) return `${line} The server asks for authorization with scope '${scope}'.`;
  return line;
}

/** Where this server's credentials are configured: the authProvider, and each header whose name says it carries one. */
function credentialFields(config: ServerConfig): string[] {
  const fields: string[] = [];
  if ("authProvider" in config && config.authProvider) fields.push("the authProvider's tokens");
  if ("headers" in config && config.headers) {
    for (const name of Object.keys(config.headers)) if (isSecretName(name)) fields.push(`headers.${name}`);
  }
  return fields;
}

/** `{"error":"invalid_token","error_description":"…"}` in the answer's body, as OAuth servers send it without a challenge. */
function toldInBody(message: string): { error?: string; description?: string } | undefined {
  const start = message.indexOf("{");
  const end = message.lastIndexOf("}");
  if (start < 0 || end < start) return undefined;
  try {
    const body = JSON.parse(message.slice(start, end + 1)) as unknown;
    if (!isRecord(body)) return undefined;
    const told: { error?: string; description?: string } = {};
    // An error code is a word; anything else is no code to quote.
    if (typeof body.error === "string" && /^[\w.-]{1,64}$/.test(body.error)) told.error = body.error;
    if (typeof body.error_description === "string") told.description = body.error_description;
    return told;
  } catch {
    return undefined;
  }
}

/**
 * The body of an answer that gave neither a challenge nor JSON ("invalid token"), as the classified
 * message carries it: without the status, the SDK's own sentence and the classifier's scope note.
 */
function plainBody(message: string): string | undefined {
  const body = message
    .replace(/^HTTP \d{3}(?::\s*|\s*$)/, "")
    .replace(/^Version negotiation failed: the server (?:requires authorization|denied access) \(HTTP \d{3}\)(?::\s*|\s*$)/, "")
    .replace(/^Non-200 status code \(\d{3}\)\s*/, "")
    .replace(/\s*The server asks for authorization with scope '[^']*'\.$/, "")
    .trim();
  // "Unauthorized" (the SDK's own error, or a status line as the body) says no more than the status.
  return body === "" || /^(?:unauthorized|forbidden|access denied|authentication required)\.?$/i.test(body) ? undefined : body;
}

/**
 * "Server 'api' (http://127.0.0.1:3000/mcp) refused the connection." The address the socket
 * tried is named only where it is not the URL's own (`localhost` resolved to `::1`).
 */
function connectionRefused(where: string, url: string, message: string): string {
  const refused = /^Connection refused(?: by (\S+?))?\.?$/.exec(message);
  if (refused) {
    const address = refused[1];
    // Bun names the URL itself ("by http://…"), which the line already shows.
    const elsewhere = address !== undefined && !address.includes("/") && address !== hostOf(url);
    return `${where} refused the connection${elsewhere ? ` at ${address}` : ""}.`;
  }
  // "The server at <url> is unreachable (no route to the host)."
  const atUrl = /^The server at \S+ /.exec(message);
  if (atUrl) return `${where} ${message.slice(atUrl[0].length)}`;
  return `${where}: ${message}`;
}

/** The URL as a place: origin and path, without the user, password, query or fragment it may carry. */
function placeOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
