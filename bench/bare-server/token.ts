/**
 * A token from the bare benchmark server (bench/bare-server/worker.ts) over HTTP, as a client gets one: register a
 * public client (DCR), authorize with PKCE (the bench server approves at once, so no sign-in or consent page),
 * exchange the code. Node side; used by bench:mcp, bench:coldstart and the bare server's test.
 */
import { createHash, randomBytes } from "node:crypto";
import { registerClient } from "../../test/helpers/oauth-http";

const REDIRECT_URI = "http://127.0.0.1:1/callback";

const base64url = (bytes: Buffer) => bytes.toString("base64url");

export async function obtainBareToken(base: string): Promise<string> {
  const clientId = await registerClient(base, [REDIRECT_URI]);
  const verifier = base64url(randomBytes(32));
  const challenge = base64url(createHash("sha256").update(verifier).digest());
  const resource = `${base}/mcp`;
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "bench",
    resource,
  });
  const authorize = await fetch(`${base}/authorize?${query}`, { redirect: "manual" });
  await authorize.text();
  const location = authorize.headers.get("location");
  const code = location ? new URL(location).searchParams.get("code") : null;
  if (authorize.status !== 302 || !code)
    throw new Error(
      `bare server /authorize did not redirect with a code: HTTP ${authorize.status} (location ${location})`,
    );
  const token = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
      resource,
    }),
  });
  if (token.status !== 200)
    throw new Error(`bare server token exchange failed: HTTP ${token.status} ${await token.text()}`);
  return ((await token.json()) as { access_token: string }).access_token;
}
