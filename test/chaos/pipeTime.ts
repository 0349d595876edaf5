/**
 * A calibration for the hostile-input test's calls that move a line past a stdio read buffer:
 * how long this machine, loaded as it is in this run, takes to fill the SDK's 10 MB buffer from
 * a child process's stdout until it gives up. The buffer copies itself whole on every chunk it
 * takes (about 170 copies of up to 10 MB), so the cost is CPU and memory bandwidth, which a busy
 * machine stretches many times over: seconds on a quiet machine, tens of seconds at a load of 14
 * on two cores. The test states its timeouts for those calls as a multiple of this.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { ReadBuffer, STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/client";

/** Milliseconds from spawning a writer of one line past the buffer to the buffer refusing it. */
export async function overflowMs(): Promise<number> {
  const started = performance.now();
  const bytes = 2 * STDIO_DEFAULT_MAX_BUFFER_SIZE;
  // One line written whole and at once, as the chaos server's raw wire writes its huge line.
  const child = spawn(process.execPath, ["-e", `process.stdout.write('{"x":"' + "x".repeat(${bytes}) + '"}\\n')`], { stdio: ["ignore", "pipe", "inherit"] });
  const buffer = new ReadBuffer();
  let overflowedAt: number | undefined;
  child.stdout.on("data", (chunk: Buffer) => {
    if (overflowedAt !== undefined) return;
    try {
      buffer.append(chunk);
      while (buffer.readMessage() !== null);
    } catch {
      // The SDK's transport gives up here; the server it reads from is closed.
      overflowedAt = performance.now();
      child.kill("SIGKILL");
    }
  });
  await once(child, "close");
  if (overflowedAt === undefined) throw new Error(`a ${bytes}-byte line did not overflow the ${STDIO_DEFAULT_MAX_BUFFER_SIZE}-byte read buffer`);
  return overflowedAt - started;
}
