/**
 * Real MCP servers whose resources change, for the pinned resources' tests, over streamable HTTP
 * on 127.0.0.1, each able to go down and come back on the same port with no sessions (a restart):
 * - v2: `createMcpHandler` (2026-07-28, and 2025-era clients statelessly), resources with
 *   `subscribe` and `listChanged`; a change is published on the handler's bus, which every open
 *   `subscriptions/listen` stream that asked for the URI hears;
 * - v1: a sessionful 2025-era server (test/servers/http.ts) answering `resources/subscribe`; a
 *   change is sent as `notifications/resources/updated` to each session that subscribed to it.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { Socket } from "node:net";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer as V2McpServer } from "@modelcontextprotocol/server";
import { HttpFixture } from "../servers/http.js";
import { listenTracking } from "../servers/stopHttp.js";

export const NOTES_URI = "test://pinned/notes";
export const GUIDE_URI = "test://pinned/guide";
export const ALSO_URI = "test://pinned/also";

export interface PinServer {
  readonly url: URL;
  /** Sets a resource's text; unless `notify` is false, tells whoever subscribed to it. */
  change(uri: string, text: string, notify?: boolean): void;
  /** Adds a resource and says the list changed. */
  add(uri: string, text: string): void;
  /** How many `resources/subscribe` (v1) or `subscriptions/listen` (v2) requests it answered. */
  readonly subscribes: number;
  /** Stops: its open streams are cut and connections refused until `up`. */
  down(): Promise<void>;
  /** Listens again on the same port, knowing no session: the restarted server. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export type PinLine = "v1" | "v2";

export function startPinServer(line: PinLine): Promise<PinServer> {
  return line === "v1" ? startV1() : startV2();
}

function initialTexts(): Map<string, string> {
  return new Map([
    [NOTES_URI, "notes v1"],
    [GUIDE_URI, "guide v1"],
  ]);
}

const nameOf = (uri: string) => uri.split("/").at(-1)!;
const contents = (uri: string, text: string) => ({ contents: [{ uri, mimeType: "text/plain", text }] });

async function startV2(): Promise<PinServer> {
  const texts = initialTexts();
  let subscribes = 0;
  const build = () => {
    const server = new V2McpServer({ name: "pins-v2", version: "2.0.0" }, { capabilities: { resources: { subscribe: true, listChanged: true } } });
    for (const uri of texts.keys()) server.registerResource(nameOf(uri), uri, { mimeType: "text/plain" }, async (u) => contents(u.href, texts.get(u.href) ?? ""));
    return server;
  };
  const handler = createMcpHandler(() => build());
  const serve = toNodeHandler(handler);
  const sockets = new Set<Socket>();
  let http: HttpServer | undefined;
  let port = 0;
  const listen = async () => {
    http = createServer((req, res) => {
      if (req.method === "POST" && req.headers["mcp-method"] === "subscriptions/listen") subscribes++;
      void serve(req, res);
    });
    port = await listenTracking(http, port, sockets);
  };
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    const closing = http;
    http = undefined;
    await new Promise<void>((resolve) => (closing ? closing.close(() => resolve()) : resolve()));
  };
  await listen();
  return {
    get url() {
      return new URL(`http://127.0.0.1:${port}/mcp`);
    },
    get subscribes() {
      return subscribes;
    },
    change(uri, text, notify = true) {
      texts.set(uri, text);
      if (notify) handler.notify.resourceUpdated(uri);
    },
    add(uri, text) {
      texts.set(uri, text);
      handler.notify.resourcesChanged();
    },
    down: stop,
    up: listen,
    async close() {
      await handler.close();
      await stop();
    },
  };
}

async function startV1(): Promise<PinServer> {
  const texts = initialTexts();
  /** Each session's server, with the URIs it subscribed to. */
  const sessions = new Map<V1McpServer, Set<string>>();
  let subscribes = 0;
  const build = () => {
    const server = new V1McpServer({ name: "pins-v1", version: "1.0.0" }, { capabilities: { resources: { subscribe: true, listChanged: true } } });
    for (const uri of texts.keys()) server.registerResource(nameOf(uri), uri, { mimeType: "text/plain" }, async (u) => contents(u.href, texts.get(u.href) ?? ""));
    const subscribed = new Set<string>();
    sessions.set(server, subscribed);
    server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      subscribes++;
      subscribed.add(request.params.uri);
      return {};
    });
    server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      subscribed.delete(request.params.uri);
      return {};
    });
    return server;
  };
  const fixture = await new HttpFixture({ build }).start();
  return {
    get url() {
      return fixture.url;
    },
    get subscribes() {
      return subscribes;
    },
    change(uri, text, notify = true) {
      texts.set(uri, text);
      if (!notify) return;
      for (const [server, uris] of sessions) if (uris.has(uri)) void server.server.sendResourceUpdated({ uri }).catch(() => undefined);
    },
    add(uri, text) {
      texts.set(uri, text);
      for (const server of sessions.keys()) {
        if (!server.isConnected()) continue;
        server.registerResource(nameOf(uri), uri, { mimeType: "text/plain" }, async (u) => contents(u.href, texts.get(u.href) ?? ""));
      }
    },
    async down() {
      sessions.clear();
      await fixture.down();
    },
    up: () => fixture.up(),
    close: () => fixture.close(),
  };
}
