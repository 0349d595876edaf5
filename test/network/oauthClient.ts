/**
 * An app's side of the OAuth authorization-code flow: an `OAuthClientProvider` that keeps
 * everything in memory and, where a browser would open the authorization URL, records it. The
 * app finishes the flow with the SDK's public `auth()`, as the SDK's own examples do with
 * `transport.finishAuth` (the toolkit owns its transports, so the app calls `auth` itself).
 */
import { auth, type OAuthClientProvider, type OAuthDiscoveryState } from "@modelcontextprotocol/client";

type Stored<K extends keyof OAuthClientProvider> = OAuthClientProvider[K] extends ((...args: never[]) => infer R) | undefined ? Awaited<R> : never;

export class MemoryOAuthProvider implements OAuthClientProvider {
  /** Every URL the SDK asked the app to send the user to. */
  readonly redirects: URL[] = [];
  private client: Stored<"clientInformation">;
  private saved: Stored<"tokens">;
  private verifier = "";
  private discovery: OAuthDiscoveryState | undefined;

  constructor(readonly redirectUrl = "http://127.0.0.1:1/callback") {}

  get clientMetadata(): OAuthClientProvider["clientMetadata"] {
    return { client_name: "langchain-mcp-errors test", redirect_uris: [this.redirectUrl], grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }

  clientInformation(): Stored<"clientInformation"> {
    return this.client;
  }

  saveClientInformation(info: NonNullable<Stored<"clientInformation">>): void {
    this.client = info;
  }

  tokens(): Stored<"tokens"> {
    return this.saved;
  }

  saveTokens(tokens: NonNullable<Stored<"tokens">>): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.redirects.push(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  /**
   * Plays the user who approves: opens the last authorization URL (the test server approves at
   * once and redirects back with a code) and redeems the code through the SDK's `auth()`.
   */
  async approve(serverUrl: URL): Promise<void> {
    const url = this.redirects.at(-1);
    if (!url) throw new Error("The SDK never asked for authorization.");
    const response = await fetch(url, { redirect: "manual" });
    await response.arrayBuffer();
    const code = new URL(response.headers.get("location") ?? "").searchParams.get("code");
    if (!code) throw new Error(`The authorization server answered ${response.status} without a code.`);
    const result = await auth(this, { serverUrl, authorizationCode: code });
    if (result !== "AUTHORIZED") throw new Error(`auth() answered ${result}`);
  }
}
