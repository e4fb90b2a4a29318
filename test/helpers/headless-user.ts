/**
 * An OAuthClientProvider for the MCP SDK's client whose "browser" is a person scripted over HTTP: when the SDK
 * sends the user to /authorize, it signs in with the development sign-in, approves the consent page (all the
 * offered scopes, or a chosen subset) and keeps the authorization code for `transport.finishAuth(code)`.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { HttpBrowser, locationOf } from "./http-browser";

export class HeadlessUserProvider implements OAuthClientProvider {
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = "";
  private code: string | undefined;
  readonly browser = new HttpBrowser();
  /** Scopes the consent page showed each time it was shown. */
  readonly consentPagesSeen: string[][] = [];
  readonly authorizationUrls: URL[] = [];

  constructor(
    private readonly serverUrl: string,
    private readonly user: string,
    private readonly callbackUrl = "http://127.0.0.1:1/callback",
    private readonly untick: readonly string[] = [],
  ) {}

  get redirectUrl(): string {
    return this.callbackUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Arbiter e2e SDK client",
      redirect_uris: [this.callbackUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }

  /** The code of the last completed authorization; each code is handed out once. */
  takeCode(): string {
    const code = this.code;
    if (!code) throw new Error("no authorization code: the SDK did not send the user to /authorize");
    this.code = undefined;
    return code;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrls.push(url);
    let response = await this.browser.fetch(url.href);
    let location = locationOf(response, this.serverUrl);
    if (location && new URL(location).pathname === "/signin") {
      const returnTo = new URL(location).searchParams.get("return") ?? "/";
      const signedIn = await this.browser.postForm(`${this.serverUrl}/signin/dev`, {
        user: this.user,
        return: returnTo,
      });
      response = await this.browser.fetch(locationOf(signedIn, this.serverUrl)!);
      location = locationOf(response, this.serverUrl);
    }
    if (response.status === 200) {
      const page = await response.text();
      const handle = /name="handle" value="([^"]+)"/.exec(page)?.[1];
      if (!handle) throw new Error(`expected the consent page, got: ${page.slice(0, 300)}`);
      // The requested scopes the role may grant; the user ticks the sensitive ones too (they are never pre-ticked).
      const offered = [...page.matchAll(/name="scope" value="([^"]+)" data-requested/g)].map((m) => m[1]!);
      this.consentPagesSeen.push(offered);
      const form = new URLSearchParams({ handle, decision: "approve" });
      for (const scope of offered) if (!this.untick.includes(scope)) form.append("scope", scope);
      response = await this.browser.fetch(`${this.serverUrl}/authorize`, {
        method: "POST",
        body: form,
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: this.serverUrl },
      });
      location = locationOf(response, this.serverUrl);
    }
    if (!location?.startsWith(this.callbackUrl))
      throw new Error(`authorization did not return to the client (status ${response.status}, location ${location})`);
    const code = new URL(location).searchParams.get("code");
    if (!code) throw new Error(`authorization failed: ${location}`);
    this.code = code;
  }
}
