import { fileURLToPath } from "node:url";

/** The command that starts the v2 stdio fixture server as a child process. */
export function v2StdioCommand(): { command: string; args: string[] } {
  const entry = fileURLToPath(new URL("./stdio-server.ts", import.meta.url));
  return { command: process.execPath, args: ["--import", "tsx", entry] };
}
