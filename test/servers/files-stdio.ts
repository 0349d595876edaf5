/**
 * The server-filesystem-shaped fixture (files.ts) as a stdio process: FILES_SDK=v2 serves it with
 * the v2 server package (both eras), anything else with the v1 SDK.
 */
import { fileURLToPath } from "node:url";

/** The command that starts this file as a stdio server, on the SDK line given. */
export function filesStdioServer(sdk: "v1" | "v2"): { transport: "stdio"; command: string; args: string[]; env: Record<string, string> } {
  const entry = fileURLToPath(import.meta.url);
  return { transport: "stdio", command: process.execPath, args: ["--import", "tsx", entry], env: { FILES_SDK: sdk } };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.env.FILES_SDK === "v2") {
    const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
    const { buildV2FilesServer } = await import("./files.js");
    serveStdio(() => buildV2FilesServer());
  } else {
    const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
    const { buildV1FilesServer } = await import("./files.js");
    await buildV1FilesServer().connect(new StdioServerTransport());
  }
}
