// `npm run demo:organization` (beside `npm start`): what a new organization brings, on loopback, for the walkthrough
// in docs/operations.md "Onboarding an organization in five minutes": its own OpenID Connect provider (oidc-provider,
// with one member, ivy@initech.example, password anything) and its own GraphQL orders API. It prints the operator's
// commands with this run's addresses filled in, then stays up (Ctrl-C stops it). Development only: the same loopback
// servers the end-to-end test (test/node/organizations-e2e.test.ts) onboards.
import { randomUUID } from "node:crypto";
import { startTestProvider } from "../test/helpers/oidc-test-provider";
import { startLoopbackUpstream } from "../test/node/graphql-support";

const arbiter = process.env.ARBITER_URL ?? "http://localhost:8787";
const clientSecret = `initech-demo-${randomUUID()}`;
const credential = `initech-orders-${randomUUID()}`;

const provider = await startTestProvider({
  clientId: "arbiter",
  clientSecret,
  redirectUris: [`${arbiter}/signin/org/callback`],
  customClaims: ["role"],
  accounts: {
    ivy: { claims: { name: "Ivy Initech", email: "ivy@initech.example", email_verified: true, role: "analyst" } },
  },
});
const upstream = await startLoopbackUpstream();
let seen = 0;
setInterval(() => {
  for (const request of upstream.requests.slice(seen)) {
    const sent = request.headers.authorization === `Bearer ${credential}` ? "initech's credential" : "NO credential";
    console.log(
      `orders API: ${request.body.operationName ?? "query"} with ${sent}, X-Organization-Id: ${request.headers["x-organization-id"] ?? "(none)"}`,
    );
  }
  seen = upstream.requests.length;
}, 500).unref();

const op = `curl -s -H "Authorization: Bearer dev-operator-key" -H "Content-Type: application/json"`;
console.log(`initech's identity provider: ${provider.issuer} (member: ivy, any password)
initech's orders API:        ${upstream.url()}

The operator, against \`npm start\` at ${arbiter}:

${op} -X POST ${arbiter}/operator/v1/organizations -d '{
  "id": "initech", "name": "Initech", "emailDomains": ["initech.example"],
  "signIn": { "issuer": "${provider.issuer}", "clientId": "arbiter", "roleClaim": "role" },
  "upstream": { "endpoint": "${upstream.url()}", "credentialScheme": "Bearer", "organizationHeader": "X-Organization-Id" }
}'
${op} -X PUT ${arbiter}/operator/v1/organizations/initech/secrets/signInClientSecret -d '{"value": "${clientSecret}"}'
${op} -X PUT ${arbiter}/operator/v1/organizations/initech/secrets/upstreamCredential -d '{"value": "${credential}"}'

Then connect any MCP client to ${arbiter}/mcp, choose "Sign in with your organization's account", type
ivy@initech.example, sign in as ivy, consent, and call orders_search: its requests show up here.
Ctrl-C stops both servers.`);

const stop = async () => {
  await Promise.all([provider.stop(), upstream.close()]);
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
