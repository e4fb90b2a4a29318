/**
 * A real OpenID Connect provider (`oidc-provider`, a certified implementation) on loopback, for sign-in
 * tests, behind a real loopback HTTP proxy.
 *
 * The provider's issuer is the proxy's URL, so everything the relying party does (discovery, token
 * endpoint, JWKS, UserInfo) passes through the proxy. Normally the proxy forwards bytes unchanged. A test
 * can ask it to replace the id_token in the token endpoint's answer (tampering: the provider itself stays
 * honest) or to drop token endpoint connections (an unreachable provider).
 *
 * The provider signs with a key the test generates, so a test can also sign tokens that the provider's
 * published JWKS genuinely verifies (to prove that issuer, audience, nonce and expiry are checked on their
 * own, not only the signature).
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import Provider from "oidc-provider";

export interface TestAccount {
  /** Claims released for the openid, email and profile scopes and the custom org/role claims. */
  claims: Record<string, unknown>;
  /** If true, the ID token carries only `sub`; the other claims come from UserInfo alone. */
  thinIdToken?: boolean;
}

export interface TestProviderOptions {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  accounts: Record<string, TestAccount>;
  /** Custom claims (beyond the standard ones) the provider may release. */
  customClaims?: string[];
}

/** Rewrites the id_token in a token endpoint answer. Receives the provider's real id_token. */
export type IdTokenTamper = (idToken: string) => Promise<string> | string;

export interface TestProvider {
  issuer: string;
  /** The provider's signing key (private) and its kid. */
  signingKey: CryptoKey;
  kid: string;
  /** Replace the id_token of the next token responses until reset with undefined. */
  tamperIdToken(tamper: IdTokenTamper | undefined): void;
  /** While true, connections to the token endpoint are dropped without an answer. */
  dropTokenRequests(drop: boolean): void;
  stop(): Promise<void>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => done());
  });
  return (server.address() as AddressInfo).port;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
}

function readBody(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => done(Buffer.concat(chunks)));
    stream.on("error", fail);
  });
}

export async function startTestProvider(options: TestProviderOptions): Promise<TestProvider> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = "arbiter-test-key-1";
  const privateJwk: JWK = { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };

  // The proxy's port is the issuer's; bind it first.
  let tamper: IdTokenTamper | undefined;
  let drop = false;
  let providerPort = 0;
  const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
    const isToken = req.method === "POST" && (req.url ?? "").split("?")[0] === "/token";
    if (isToken && drop) {
      req.socket.destroy();
      return;
    }
    const upstream = httpRequest(
      { host: "127.0.0.1", port: providerPort, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const currentTamper = tamper;
        if (!isToken || !currentTamper || answer.statusCode !== 200) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        void (async () => {
          try {
            const json = JSON.parse((await readBody(answer)).toString()) as Record<string, unknown>;
            if (typeof json.id_token === "string") json.id_token = await currentTamper(json.id_token);
            const body = Buffer.from(JSON.stringify(json));
            const headers = { ...answer.headers, "content-length": String(body.length) };
            delete headers["transfer-encoding"];
            res.writeHead(200, headers);
            res.end(body);
          } catch (error) {
            res.writeHead(500, { "content-type": "text/plain" });
            res.end(`test proxy failed to tamper: ${String(error)}`);
          }
        })();
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  const proxyPort = await listen(proxy);
  const issuer = `http://127.0.0.1:${proxyPort}`;

  const custom = options.customClaims ?? [];
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [privateJwk as Record<string, unknown>] },
    claims: { openid: ["sub", ...custom], email: ["email", "email_verified"], profile: ["name", "preferred_username"] },
    // Release scope claims in the ID token too (as most providers do); thin accounts opt out below.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ["arbiter-test-provider-cookie-key"] },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    async findAccount(_ctx, id) {
      const account = options.accounts[id];
      if (!account) return undefined;
      return {
        accountId: id,
        claims: (use) => (use === "id_token" && account.thinIdToken ? { sub: id } : { ...account.claims, sub: id }),
      };
    },
  });
  // oidc-provider logs server errors through events; keep test output quiet unless something is wrong.
  provider.on("server_error", (_ctx, error) => console.error("oidc-provider server_error", error));
  const providerServer = createServer(provider.callback());
  providerPort = await listen(providerServer);

  return {
    issuer,
    signingKey: privateKey,
    kid,
    tamperIdToken(next) {
      tamper = next;
    },
    dropTokenRequests(next) {
      drop = next;
    },
    async stop() {
      await Promise.all([close(proxy), close(providerServer)]);
    },
  };
}
