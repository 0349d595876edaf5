import { fileURLToPath } from "node:url";

/** The command that starts the stdio fixture server as a child process. */
export function stdioFixtureCommand(): { command: string; args: string[] } {
  const entry = fileURLToPath(new URL("./stdio-server.ts", import.meta.url));
  return { command: process.execPath, args: ["--import", "tsx", entry] };
}
