/**
 * What the Node build adds (see types.ts). The runtime-neutral build (tsup.config.ts) resolves
 * this file to neutral.ts instead, so nothing it names is bundled there.
 */
import { ListenWatch } from "../mcp/transport/listenWatch.js";
import { stdioTransport } from "../mcp/transport/stdio.js";
import type { NodeOnly } from "./types.js";

export type { NodeOnly } from "./types.js";

export const nodeOnly: NodeOnly = {
  stdioTransport,
  listenProbe: (url, closing) => new ListenWatch(url, closing),
  fleet: () => import("../fleet/FleetState.js"),
};
