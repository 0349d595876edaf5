#!/usr/bin/env node
/** The `langchain-mcp-errors` command (`doctor`); main.ts reads the command line. */
import { main } from "./main.js";

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exitCode = 2;
  },
);
