// arbiter token: print a current access token for scripts.
import { chosenServer, credentialsFile, currentAccessToken, loadCredentials, resourceNameOf } from "../credentials.mjs";
import { EXIT, fail } from "../errors.mjs";

export async function token(values, _positionals, env, out) {
  const file = credentialsFile(env);
  const store = loadCredentials(file);
  const resourceName = resourceNameOf(values);
  const origin = chosenServer(values, env, store);
  if (!origin) fail('Not logged in to any server: run "arbiter login --server https://arbiter.example.com" first.');
  out(await currentAccessToken(file, store, origin, resourceName));
  return EXIT.approved;
}
