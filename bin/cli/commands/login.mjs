// arbiter login: the authorization-code flow with PKCE through the person's browser.
import { createHash, randomBytes } from "node:crypto";
import {
  RESOURCE_PATH,
  credentialsFile,
  loadCredentials,
  resourceNameOf,
  saveCredentials,
  serverOrigin,
} from "../credentials.mjs";
import { EXIT, fail } from "../errors.mjs";
import { postForm } from "../http.mjs";
import { identityLine, identityOf } from "../identity.mjs";
import { OFFLINE_ACCESS, loginHint } from "../scopes.mjs";
import { listenForCallback, openBrowser } from "../loopback.mjs";
import {
  authorizationAccepted,
  authorizationUrl,
  base64url,
  discover,
  oauthProblem,
  registerClient,
  requestedScopes,
  storedTokens,
} from "../oauth.mjs";

const LOGIN_WAIT_SECONDS = 300;

const TOKEN_NAME = Object.freeze({ api: "REST API token", chat: "/chat token", mcp: "MCP token" });

export async function login(values, _positionals, env, out, err) {
  if (!values.server && !values.url && !env.ARBITER_URL)
    fail("Name the server: arbiter login --server https://arbiter.example.com (or set ARBITER_URL).");
  const origin = serverOrigin(
    values.server ?? values.url ?? env.ARBITER_URL,
    values.server ? "--server" : values.url ? "--url" : "ARBITER_URL",
  );
  const resourceName = resourceNameOf(values);
  const waitSeconds = values.timeout === undefined ? LOGIN_WAIT_SECONDS : Number(values.timeout);
  if (!Number.isFinite(waitSeconds) || waitSeconds <= 0) fail("--timeout must be a positive number of seconds.");
  const file = credentialsFile(env);
  const store = loadCredentials(file); // a broken file is reported before the browser opens
  const endpoints = await discover(origin, RESOURCE_PATH[resourceName]);
  const scopes = requestedScopes(values, resourceName, endpoints);
  const state = base64url(randomBytes(16));
  const verifier = base64url(randomBytes(32));
  const challenge = base64url(createHash("sha256").update(verifier).digest());
  const listener = await listenForCallback(state, endpoints.issuer);
  try {
    const saved = store.servers[origin]?.issuer === endpoints.issuer ? store.servers[origin] : undefined;
    // One registered client per credential slot: the server keeps one grant per user and client, so a /chat or
    // MCP login with the REST API's client would revoke the REST token. The REST API's client is the server
    // entry's clientId; the other slots name theirs in their token entry.
    let clientId = resourceName === "api" ? saved?.clientId : saved?.tokens?.[resourceName]?.clientId;
    let url = clientId
      ? authorizationUrl(endpoints, clientId, listener.redirectUri, scopes, state, challenge)
      : undefined;
    if (!url || !(await authorizationAccepted(url)).ok) {
      // First login, or the server no longer knows the stored client: register (again).
      clientId = await registerClient(endpoints, listener.redirectUri);
      url = authorizationUrl(endpoints, clientId, listener.redirectUri, scopes, state, challenge);
      const check = await authorizationAccepted(url);
      if (!check.ok)
        fail(
          `The server refused the authorization request (${check.status}) of the client it just registered for ${listener.redirectUri}; it must accept loopback redirect URIs on any port (RFC 8252 section 7.3).`,
        );
    }
    err(
      `To sign in to ${origin} and allow the Arbiter CLI ${resourceName === "mcp" ? "an" : "a"} ${TOKEN_NAME[resourceName]}, open this URL in a browser:\n\n  ${url}\n`,
    );
    if (!values["no-browser"])
      err(
        (await openBrowser(url))
          ? "A browser window should open; if it does not, open the URL yourself."
          : "No browser could be opened here: open the URL yourself.",
      );
    err(
      `Requested scopes: ${scopes.join(" ")} (${OFFLINE_ACCESS} lets the CLI renew the token). Waiting up to ${waitSeconds} s for the browser...`,
    );
    const code = await listener.answer(waitSeconds * 1000);
    const started = Date.now();
    const { status, data } = await postForm(endpoints.tokenEndpoint, {
      grant_type: "authorization_code",
      code,
      redirect_uri: listener.redirectUri,
      client_id: clientId,
      code_verifier: verifier,
      resource: endpoints.resource,
    });
    if (status !== 200)
      fail(
        `The server refused to exchange the authorization code for a token (${oauthProblem(status, data)}): nothing was stored. Run arbiter login again.`,
      );
    const tokens = {
      resource: endpoints.resource,
      ...(resourceName === "api" ? {} : { clientId }),
      ...storedTokens(data, started),
    };
    const entryClient = resourceName === "api" ? clientId : saved?.clientId;
    // Tokens of an older file name no client: they belong to the entry's, and go when that client is replaced.
    const kept = Object.fromEntries(
      Object.entries(saved?.tokens ?? {}).filter(([, t]) => t.clientId || saved.clientId === entryClient),
    );
    store.servers[origin] = {
      issuer: endpoints.issuer,
      clientId: entryClient,
      tokenEndpoint: endpoints.tokenEndpoint,
      revocationEndpoint: endpoints.revocationEndpoint,
      tokens: { ...kept, [resourceName]: tokens },
    };
    saveCredentials(file, store);
    const granted = tokens.scope.split(" ").filter(Boolean);
    const missing = scopes.filter((s) => !granted.includes(s));
    out(
      `Logged in to ${origin}: ${TOKEN_NAME[resourceName]} with scopes ${granted.join(" ") || "(none)"}${tokens.expiresAt ? `, valid until ${tokens.expiresAt}` : ""}. Stored in ${file}.`,
    );
    // Whoever finished the sign-in in the browser owns this token: say who that is, so a wrong account shows.
    const identity = await identityOf(origin, resourceName, tokens.accessToken);
    out(
      identity
        ? `Signed in as ${identityLine(identity)}. If that is not you, run "arbiter logout" now.`
        : "The server did not say which user this token is for: check with arbiter token --whoami.",
    );
    if (missing.length > 0)
      out(
        `Not granted: ${missing.join(" ")} (your role may not grant them, or they were unticked on the consent page).`,
      );
    if (!tokens.refreshToken)
      out(
        `No refresh token was issued (${OFFLINE_ACCESS} not granted): run ${loginHint(origin, resourceName)} again when the token expires.`,
      );
    out(`Use it in scripts: TOKEN=$(arbiter token${resourceName === "api" ? "" : ` --resource ${resourceName}`})`);
    return EXIT.approved;
  } finally {
    listener.close();
  }
}
