/** Grants made by the OAuth library itself, as /authorize makes them (grantOwner), for the grant tests. */
import { env } from "cloudflare:test";
import { grantOwner } from "../../../src/auth/authorize";
import type { Env } from "../../../src/env";
import { rememberGrantHolder } from "../../../src/oauth/grant-holders";
import { getAuthorizationServer } from "../../../src/oauth/servers";

export const workerEnv = env as unknown as Env;
export const oauth = () => getAuthorizationServer(workerEnv).getOAuthApi(workerEnv);

/** A public client registered with one redirect URI on `<name>.example`. */
export async function newClient(name: string): Promise<string> {
  const client = await oauth().createClient({
    redirectUris: [`https://${name}.example/callback`],
    clientName: name,
    tokenEndpointAuthMethod: "none",
  });
  return client.clientId;
}

/** Notes `subject` as a grant holder of `organizationId`, then grants `clientId` its `scope`, as /authorize does. */
export async function grantAs(organizationId: string, subject: string, clientId: string, scope: string[]) {
  await rememberGrantHolder(workerEnv, { organizationId, subject, name: subject });
  const redirectUri = (await oauth().lookupClient(clientId))?.redirectUris[0] ?? "";
  return oauth().completeAuthorization({
    request: {
      responseType: "code",
      clientId,
      redirectUri,
      scope,
      state: "s",
      codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      codeChallengeMethod: "S256",
    },
    ...grantOwner({ organizationId, subject }),
    scope,
    props: { organizationId, userId: subject },
  });
}
