/**
 * What a person can do about a server that fails to connect: what to check and which command
 * to run. Never the model's hint, which tells a model how to go on without the tool.
 */
import type { Reason } from "../errors/reasons.js";

/** The server a remedy is about. */
export interface RemedySubject {
  transport: "stdio" | "http" | "sse" | "client";
  /** The command line or the URL, secrets redacted. */
  target: string;
  /** For a stdio server, the program alone, redacted. */
  program?: string;
  /** How long the connect was given, ms. */
  connectTimeoutMs: number;
  /** The error's `data`: a remedy may depend on what it says (the TLS code, credentials in the URL). */
  data?: unknown;
}

type Remedy = string | ((s: RemedySubject) => string);

const stdio = (s: RemedySubject) => s.transport === "stdio";

/** For a server that answered, but not as an MCP server. */
const notMcp: Remedy = (s) =>
  stdio(s)
    ? `\`${s.target}\` started but did not answer as an MCP server: check that it is one, and how it starts in stdio mode (some need an argument such as \`stdio\`). Run it yourself: it should print nothing until it reads a JSON-RPC request on stdin.`
    : `Something at ${s.target} answered, but not as an MCP server: check the URL's path (often /mcp, or /sse for the sse transport) and any proxy in front.`;

const failedInside: Remedy = (s) =>
  stdio(s) ? `The server failed while starting its session: run \`${s.target}\` yourself and read its error output.` : `The server at ${s.target} failed while starting its session: read its logs.`;

const timedOut: Remedy = (s) =>
  stdio(s)
    ? `\`${s.target}\` started but did not answer within ${s.connectTimeoutMs} ms: run it yourself to see whether it waits for something (a login, a first \`npx -y\` download), or raise the server's connectTimeoutMs (doctor --timeout <ms>).`
    : `No answer from ${s.target} within ${s.connectTimeoutMs} ms: check that the server is up and reachable from here (\`curl -i ${s.target}\`), or raise the server's connectTimeoutMs (doctor --timeout <ms>).`;

const REMEDIES: Partial<Record<Reason, Remedy>> = {
  spawn_failed: (s) => {
    const program = s.program ?? "<command>";
    // `"command": "node x.js"`: the whole line was looked for as one program's name.
    const words = program.trim().split(/\s+/);
    if (words.length > 1) {
      return `The command is one string, '${program}': put the program alone in \`command\` and each argument in \`args\` ("command": ${JSON.stringify(words[0])}, "args": ${JSON.stringify(words.slice(1))}).`;
    }
    return `Install the command, or give its absolute path: the agent's PATH may differ from your shell's (\`command -v ${program}\` shows yours).`;
  },
  connection_closed: (s) =>
    stdio(s)
      ? `The process started and exited: run \`${s.target}\` yourself to read its error (often a missing argument, environment variable or login).`
      : `The server closed the connection: read its logs, and check any proxy in front of ${s.target}.`,
  not_connected: (s) => (stdio(s) ? `The process is gone: run \`${s.target}\` yourself to read its error.` : `The connection to ${s.target} closed: read the server's logs.`),
  connection_refused: "Nothing listens there: start the server, or correct the host and port.",
  connection_reset: (s) => `The connection was cut: check a proxy, VPN or firewall between here and ${s.target}, and the server's logs.`,
  network_timeout: timedOut,
  request_timeout: timedOut,
  dns_failure: "Check the host name in the URL, and your network or VPN.",
  tls_error: (s) =>
    dataSays(s, "tlsCode", "ERR_SSL_WRONG_VERSION_NUMBER")
      ? `The server speaks plain HTTP on this port, not TLS: use http:// instead of https:// in the URL (or the port where the server serves TLS).`
      : "The certificate is not trusted: point NODE_EXTRA_CA_CERTS at its CA file, or correct the URL (https vs http).",
  unauthorized: "Check the credentials in `headers` (or the environment variable they come from).",
  forbidden: "The credentials lack a permission or scope: ask for the one the message names.",
  unexpected_response: "Something answered, but not an MCP server: check the URL's path (often /mcp) and any proxy in front.",
  http_error: (s) =>
    dataSays(s, "urlUserInfo", true)
      ? "The URL holds credentials (user:password@), which fetch refuses to send: take them out of the URL and put them in `headers` (for Basic auth, an `Authorization` header with user:password in base64; or the token the server expects)."
      : "The server rejected the request: check the URL's path and the transport (`http` or `sse`).",
  service_unavailable: "The server is up but unavailable: run doctor again in a minute; if it stays so, check the server's status and logs.",
  session_expired: "The server dropped the session while connecting: behind a load balancer, make sessions sticky.",
  stream_error: (s) => `The response stream broke: check that no proxy in front of ${s.target} buffers or cuts server-sent events, and read the server's logs.`,
  parse_error: notMcp,
  invalid_request: notMcp,
  method_not_found: notMcp,
  header_mismatch: notMcp,
  invalid_result: notMcp,
  internal_error: failedInside,
  server_error: failedInside,
  rate_limited: "The server is rate limiting this client: wait, then run doctor again; check the quota of the credentials in `headers`.",
  protocol_version_unsupported:
    'The server and this client share no protocol version: update the server or langchain-mcp-errors, or set the server\'s `era` ("legacy" for a 2025-era server, "modern" for 2026-07-28).',
  capability_missing: (s) => `The server lacks a capability this client needs: check that ${s.target} is the server you meant, and its version.`,
  cancelled: "Doctor was stopped before the server answered: run it again.",
  closed: "Doctor was stopped before the server answered: run it again.",
};

function dataSays(s: RemedySubject, key: string, value: unknown): boolean {
  return typeof s.data === "object" && s.data !== null && (s.data as Record<string, unknown>)[key] === value;
}

/** What a person can do about a connect that failed with `reason`. */
export function remedyFor(reason: Reason, subject: RemedySubject): string {
  const remedy = REMEDIES[reason];
  if (typeof remedy === "function") return remedy(subject);
  if (remedy) return remedy;
  if (stdio(subject)) return `Run \`${subject.target}\` yourself and read what it prints on stderr; fix that, then run doctor again.`;
  if (subject.transport === "client") return "Check the client you connected: is its server running, and was it connected before the toolkit got it?";
  return `Check that ${subject.target} is an MCP server and read its logs; then run doctor again.`;
}
