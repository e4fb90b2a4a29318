// arbiter token: print a current access token for scripts; --whoami: who that token acts for.
import { chosenServer, credentialsFile, currentAccessToken, loadCredentials, resourceNameOf } from "../credentials.mjs";
import { EXIT, fail } from "../errors.mjs";
import { identityLine, identityOf } from "../identity.mjs";

export async function token(values, _positionals, env, out) {
  const file = credentialsFile(env);
  const store = loadCredentials(file);
  const resourceName = resourceNameOf(values);
  const origin = chosenServer(values, env, store);
  if (!origin) fail('Not logged in to any server: run "arbiter login --server https://arbiter.example.com" first.');
  const accessToken = await currentAccessToken(file, store, origin, resourceName);
  if (!values.whoami) {
    out(accessToken);
    return EXIT.approved;
  }
  const identity = await identityOf(origin, resourceName, accessToken);
  if (!identity)
    fail(
      `${origin} did not say who the stored ${resourceName === "mcp" ? "MCP" : "REST API"} token is for (it may have been revoked): run arbiter login again.`,
    );
  out(`${origin}: ${resourceName === "mcp" ? "MCP" : "REST API"} token of ${identityLine(identity)}`);
  return EXIT.approved;
}
