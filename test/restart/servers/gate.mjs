// Preloaded (node --import) into every HTTP server process of the restart suite, including
// third-party ones (server-everything, fastmcp), so a restart is timed to the millisecond:
// - with RESTART_GATE=1 the server's listen() is held until the harness writes "go" on stdin,
//   so the next process is started and warm before the fault and listens exactly when due;
// - every listen that completes is announced on stderr as "@@listening <port>";
// - the process ends when its stdin ends, so a harness that dies leaves no server behind.
// Plain JavaScript: it loads into processes that run without a TypeScript loader.
import net from "node:net";

const listen = net.Server.prototype.listen;
let open = process.env.RESTART_GATE !== "1";
const held = [];

net.Server.prototype.listen = function (...args) {
  this.once("listening", () => {
    const address = this.address();
    process.stderr.write(`@@listening ${typeof address === "object" && address ? address.port : address}\n`);
  });
  if (open) return listen.apply(this, args);
  held.push(() => listen.apply(this, args));
  process.stderr.write("@@held\n");
  return this;
};

process.stdin.on("data", (chunk) => {
  if (open || !String(chunk).includes("go")) return;
  open = true;
  for (const start of held.splice(0)) start();
});
process.stdin.on("end", () => process.exit(0));
