/**
 * The "Under faults" section's fault proxies in a process of their own (test/servers/proxy's
 * FaultProxy), so their work is not the measured client's: forked with an IPC channel, it starts
 * a proxy per `start` message, each dealing its mix by the seeded draw (bench/faultMix.ts), and
 * answers `keys` with the keys of the tools/call requests the proxy received, in arrival order.
 * It exits when the channel closes.
 */
import { startFaultProxy, type FaultProxy } from "../../test/servers/proxy/faultProxy.js";
import { seededDecide, type MixPart } from "../faultMix.js";

export type ProxyRequest =
  | { type: "start"; id: number; upstream: string; mix: MixPart[]; seed: number }
  | { type: "keys"; id: number }
  | { type: "close"; id: number };

export type ProxyReply = { type: "started"; id: number; url: string } | { type: "keys"; id: number; keys: string[] } | { type: "closed"; id: number } | { type: "error"; id: number; message: string };

const proxies = new Map<number, FaultProxy>();
const reply = (message: ProxyReply) => process.send!(message);

async function handle(request: ProxyRequest): Promise<ProxyReply> {
  switch (request.type) {
    case "start": {
      const proxy = await startFaultProxy(new URL(request.upstream), { decide: seededDecide(request.mix, request.seed) });
      proxies.set(request.id, proxy);
      return { type: "started", id: request.id, url: proxy.url.href };
    }
    case "keys":
      return { type: "keys", id: request.id, keys: (proxies.get(request.id)?.seen ?? []).filter((s) => s.rpc === "tools/call").map((s) => s.key ?? "") };
    case "close":
      await proxies.get(request.id)?.close();
      proxies.delete(request.id);
      return { type: "closed", id: request.id };
  }
}

process.on("message", (request: ProxyRequest) => {
  handle(request).then(reply, (error: unknown) => reply({ type: "error", id: request.id, message: String(error) }));
});
process.on("disconnect", () => {
  void Promise.all([...proxies.values()].map((p) => p.close())).finally(() => process.exit(0));
});
