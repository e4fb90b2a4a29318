// arbiter breaks list | accept <fingerprint> | revoke <id>: a project's accepted breaking changes (list:
// contracts.read; accept and revoke: contracts.write). An accepted break is reported as "accepted" instead of an
// error by later verdicts until it expires.
import { EXIT, fail } from "../errors.mjs";
import { projectPath, request } from "../http.mjs";
import { settings } from "../settings.mjs";

const USAGE =
  "Usage: arbiter breaks list --project <name> | arbiter breaks accept <fingerprint> --project <name> --reason <text> --expires <YYYY-MM-DD> [--owner <who>] | arbiter breaks revoke <id> --project <name>";

const line = (a) =>
  `${a.id}  ${a.state}  ${a.rule} at ${a.location}  until ${a.expiresAt}  owner ${a.owner}: ${a.reason}`;

export async function breaks(values, positionals, env, out) {
  const [action, subject] = positionals;
  if (!["list", "accept", "revoke"].includes(action)) fail(USAGE);
  const needs = action === "list" ? ["contracts.read"] : ["contracts.write"];
  const config = await settings(values, env, `arbiter breaks ${action}`, needs);
  if (action === "list") {
    const answer = await request(config, "GET", projectPath(config, "/accepted-breaks"));
    if (answer.acceptedBreaks.length === 0) out(`Project ${config.project} has no accepted breaks.`);
    for (const acceptance of answer.acceptedBreaks) out(line(acceptance));
    return EXIT.approved;
  }
  if (!subject) fail(USAGE);
  if (action === "revoke") {
    const answer = await request(
      config,
      "DELETE",
      projectPath(config, `/accepted-breaks/${encodeURIComponent(subject)}`),
    );
    out(
      `Revoked ${answer.acceptedBreak.id}: ${answer.acceptedBreak.rule} at ${answer.acceptedBreak.location} is an error again in later verdicts.`,
    );
    return EXIT.approved;
  }
  if (!values.reason) fail('Say why the break is accepted: --reason "<text>".');
  if (!values.expires) fail("Say until when: --expires <YYYY-MM-DD> (at most 366 days ahead).");
  const body = {
    fingerprint: subject,
    reason: values.reason,
    expiresAt: values.expires,
    ...(values.owner ? { owner: values.owner } : {}),
  };
  const answer = await request(
    config,
    "POST",
    projectPath(config, "/accepted-breaks"),
    new TextEncoder().encode(JSON.stringify(body)),
    "application/json",
  );
  const accepted = answer.acceptedBreak;
  out(
    `${answer.created ? "Accepted" : "Already accepted"} ${accepted.rule} at ${accepted.location} as ${accepted.id} until ${accepted.expiresAt} (owner ${accepted.owner}): later verdicts report it as accepted.`,
  );
  return EXIT.approved;
}
