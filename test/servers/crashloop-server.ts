/**
 * A stdio server that starts once, then fails at every later start, as after a bad deploy:
 * with CRASHLOOP_THEN=exit (the default) it prints why to stderr and exits with code 3; with
 * CRASHLOOP_THEN=hang it never answers. CRASHLOOP_MARK names a file that gets a line per start.
 */
import { appendFileSync, existsSync } from "node:fs";

const mark = process.env.CRASHLOOP_MARK;
if (!mark) throw new Error("CRASHLOOP_MARK is required");
const startedBefore = existsSync(mark);
appendFileSync(mark, "start\n");
if (startedBefore && process.env.CRASHLOOP_THEN === "hang") {
  setInterval(() => {}, 1000);
} else if (startedBefore) {
  process.stderr.write("boot: config file /etc/app.toml missing\n");
  process.exit(3);
} else {
  await import("./stdio-server.js");
}
