/**
 * The app's side of OAuth under the conformance suite. The suite's authorization server approves
 * at once: opening the authorization URL redirects to our callback with a code. So where a
 * browser would open, this provider opens the URL itself and keeps the code; the app then
 * redeems it with the SDK's `auth()` and connects (or calls) again, as an app does after its
 * callback fired.
 */
import {
  auth,
  ClientCredentialsProvider,
  CrossAppAccessProvider,
  DpopSession,
  PrivateKeyJwtProvider,
  requestJwtAuthorizationGrant,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from "@modelcontextprotocol/client";

type Stored<K extends keyof OAuthClientProvider> = OAuthClientProvider[K] extends ((...args: never[]) => infer R) | undefined ? Awaited<R> : never;

const CALLBACK = "http://localhost:3000/callback";
/** A client id metadata document's URL (SEP-991): used where the server supports them, instead of registering. */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";

/** What the suite hands a scenario that needs more than the server's URL. */
export interface ScenarioContext {
  name?: string;
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
  /** Enterprise-managed authorization (SEP-990): the identity provider's side. */
  idp_client_id?: string;
  idp_id_token?: string;
  idp_token_endpoint?: string;
  /** Workload identity federation: the token the workload's platform issued it. */
  valid_jwt?: string;
}

export class ApprovingProvider implements OAuthClientProvider {
  readonly redirectUrl = CALLBACK;
  readonly clientMetadataUrl = CLIENT_METADATA_URL;
  /** The code (and issuer) the last authorization redirected back with, not yet redeemed. */
  private pending: { code: string; iss?: string } | undefined;
  private client: Stored<"clientInformation">;
  private saved: Stored<"tokens">;
  private verifier = "";
  private discovery: OAuthDiscoveryState | undefined;

  constructor(preRegistered?: { client_id: string; client_secret?: string }) {
    if (preRegistered) this.client = { ...preRegistered, redirect_uris: [CALLBACK] };
  }

  get clientMetadata(): OAuthClientProvider["clientMetadata"] {
    return { client_name: "langchain-mcp-errors conformance", redirect_uris: [CALLBACK] };
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

  async redirectToAuthorization(url: URL): Promise<void> {
    const response = await fetch(url, { redirect: "manual" });
    await response.arrayBuffer();
    const back = new URL(response.headers.get("location") ?? "", CALLBACK);
    const code = back.searchParams.get("code");
    if (!code) throw new Error(`The authorization server answered ${response.status} without a code.`);
    const iss = back.searchParams.get("iss");
    this.pending = { code, ...(iss !== null ? { iss } : {}) };
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

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "client") this.client = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }

  /** Redeems the code the last authorization returned: true if there was one. */
  async redeem(serverUrl: string): Promise<boolean> {
    const pending = this.pending;
    if (!pending) return false;
    this.pending = undefined;
    const result = await auth(this, { serverUrl: new URL(serverUrl), authorizationCode: pending.code, ...(pending.iss !== undefined ? { iss: pending.iss } : {}) });
    // What discovery found is kept for the callback leg only, as an app keeps it beside the code
    // verifier: the next 401 discovers again, and sees an authorization server that moved (SEP-2352).
    this.discovery = undefined;
    return result === "AUTHORIZED";
  }
}

/** The same app, with its tokens bound to a key it proves it holds (DPoP, SEP-1932). */
class DpopProvider extends ApprovingProvider {
  private session: Promise<DpopSession> | undefined;

  dpop(): Promise<DpopSession> {
    return (this.session ??= DpopSession.create());
  }
}

/** A workload that trades the token its platform issued for an access token (RFC 7523 JWT bearer grant), with no user and no secret. */
class WorkloadProvider implements OAuthClientProvider {
  readonly redirectUrl = undefined;
  private saved: Stored<"tokens">;

  constructor(
    private readonly clientId: string,
    private readonly assertion: string,
  ) {}

  get clientMetadata(): OAuthClientProvider["clientMetadata"] {
    return { client_name: "langchain-mcp-errors conformance workload", redirect_uris: [], grant_types: ["urn:ietf:params:oauth:grant-type:jwt-bearer"], token_endpoint_auth_method: "none" };
  }

  clientInformation(): Stored<"clientInformation"> {
    return { client_id: this.clientId };
  }

  tokens(): Stored<"tokens"> {
    return this.saved;
  }

  saveTokens(tokens: NonNullable<Stored<"tokens">>): void {
    this.saved = tokens;
  }

  prepareTokenRequest(scope?: string): URLSearchParams {
    const params = new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: this.assertion });
    if (scope) params.set("scope", scope);
    return params;
  }

  redirectToAuthorization(): void {
    throw new Error("A workload has no user to send to an authorization page.");
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    return "";
  }
}

/**
 * The provider a scenario's flow asks for: a machine's credentials, an enterprise identity
 * provider's grant, a pre-registered client, or an app that registers.
 */
export function providerFor(context: ScenarioContext): OAuthClientProvider {
  const { name, client_id, client_secret, private_key_pem, idp_client_id, idp_id_token, idp_token_endpoint } = context;
  if (name?.startsWith("auth/dpop")) return new DpopProvider();
  if (name?.startsWith("auth/wif") && client_id && context.valid_jwt) return new WorkloadProvider(client_id, context.valid_jwt);
  if (name?.startsWith("auth/enterprise-managed") && client_id && client_secret && idp_client_id && idp_id_token && idp_token_endpoint) {
    return new CrossAppAccessProvider({
      clientId: client_id,
      clientSecret: client_secret,
      // The identity provider trades the user's ID token for a grant this authorization server accepts.
      assertion: async (ctx) =>
        (
          await requestJwtAuthorizationGrant({
            tokenEndpoint: idp_token_endpoint,
            audience: ctx.authorizationServerUrl,
            resource: ctx.resourceUrl,
            idToken: idp_id_token,
            clientId: idp_client_id,
            fetchFn: ctx.fetchFn,
            ...(ctx.scope !== undefined ? { scope: ctx.scope } : {}),
          })
        ).jwtAuthGrant,
    });
  }
  if (name === "auth/client-credentials-basic" && client_id && client_secret) return new ClientCredentialsProvider({ clientId: client_id, clientSecret: client_secret });
  if (name === "auth/client-credentials-jwt" && client_id && private_key_pem) {
    return new PrivateKeyJwtProvider({ clientId: client_id, privateKey: private_key_pem, algorithm: context.signing_algorithm ?? "ES256" });
  }
  if (name === "auth/pre-registration" && client_id) return new ApprovingProvider({ client_id, ...(client_secret ? { client_secret } : {}) });
  return new ApprovingProvider();
}
