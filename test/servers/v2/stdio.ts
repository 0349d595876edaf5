import { fileURLToPath } from "node:url";

/** Which server the v2 stdio process serves; see stdio-server.ts. */
export type V2StdioServer = "fixture" | "protocol" | "outputs";

/** The command that starts the v2 stdio fixture server as a child process. */
export function v2StdioCommand(): { command: string; args: string[] } {
  const entry = fileURLToPath(new URL("./stdio-server.ts", import.meta.url));
  return { command: process.execPath, args: ["--import", "tsx", entry] };
}

/**
 * The environment for a toolkit's stdio config: which server to serve, whether to refuse 2025-era
 * openings (`legacyReject`: a 2026-only server), and the file that logs each tool execution.
 */
export function v2StdioEnv(options: { server?: V2StdioServer; legacyReject?: boolean; log?: string } = {}): Record<string, string> {
  return {
    ...(options.server ? { FIXTURE_SERVER: options.server } : {}),
    ...(options.legacyReject ? { FIXTURE_LEGACY: "reject" } : {}),
    ...(options.log ? { FIXTURE_LOG: options.log } : {}),
  };
}
