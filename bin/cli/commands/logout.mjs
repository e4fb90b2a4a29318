// arbiter logout: revoke the tokens and delete the stored credentials.
import { chosenServer, credentialsFile, loadCredentials, resourceNameOf, saveCredentials } from "../credentials.mjs";
import { EXIT, Unverified, fail } from "../errors.mjs";
import { postForm } from "../http.mjs";
import { oauthProblem } from "../oauth.mjs";

/** RFC 7009: the refresh token first (Arbiter then revokes the whole grant), then the access token itself. */
export async function revokeAll(entry, tokens) {
  if (!entry.revocationEndpoint) return ["the server names no revocation endpoint"];
  const problems = [];
  for (const [value, hint] of [
    [tokens.refreshToken, "refresh_token"],
    [tokens.accessToken, "access_token"],
  ]) {
    if (!value) continue;
    try {
      const { status, data } = await postForm(entry.revocationEndpoint, {
        token: value,
        token_type_hint: hint,
        client_id: tokens.clientId ?? entry.clientId,
      });
      if (status !== 200) problems.push(`${hint}: ${oauthProblem(status, data)}`);
    } catch (error) {
      if (!(error instanceof Unverified)) throw error;
      problems.push(error.message);
    }
  }
  return problems;
}

export async function logout(values, _positionals, env, out) {
  const file = credentialsFile(env);
  const store = loadCredentials(file);
  const origin = chosenServer(values, env, store);
  const entry = origin ? store.servers[origin] : undefined;
  const names = values.resource ? [resourceNameOf(values)] : Object.keys(entry?.tokens ?? {});
  const held = names.filter((name) => entry?.tokens?.[name]);
  if (!entry || held.length === 0) {
    out(
      `Not logged in${origin ? ` to ${origin}${values.resource ? ` for ${values.resource}` : ""}` : ""}: nothing to revoke.`,
    );
    return EXIT.approved;
  }
  const problems = [];
  for (const name of held) {
    problems.push(...(await revokeAll(entry, entry.tokens[name])));
    delete entry.tokens[name];
  }
  // Forgotten locally even when the server could not be reached: the person asked for it to be gone.
  if (Object.keys(entry.tokens).length === 0) delete store.servers[origin];
  saveCredentials(file, store);
  if (problems.length > 0)
    fail(
      `Deleted the stored credentials for ${origin}, but the server did not confirm the revocation (${problems.join("; ")}): the tokens stay valid until they expire.`,
    );
  out(
    `Logged out of ${origin}: ${held.join(" and ")} tokens revoked and deleted from ${file}${store.servers[origin] ? "" : Object.keys(store.servers).length === 0 ? " (file removed)" : ""}.`,
  );
  return EXIT.approved;
}
