/**
 * Where Node's APIs are not (Cloudflare Workers, Vercel Edge, a browser): none of what the Node
 * build adds. runtimeCheck.ts refuses, at `connect`, a stdio server or `sharedState`; HTTP
 * servers go without the listen probe, and their waits end on their timers.
 */
import type { NodeOnly } from "./types.js";

export const nodeOnly: NodeOnly = {};
