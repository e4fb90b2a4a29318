// arbiter members list|add|remove|invite|invitations|withdraw: an organization's members and invitations
// (scope org.admin).
import { EXIT, fail } from "../errors.mjs";
import { request } from "../http.mjs";
import { settings } from "../settings.mjs";

const USAGE =
  "Usage: arbiter members list | arbiter members add <email> --role <role> | arbiter members remove <email> | " +
  "arbiter members invite <email> --role <role> | arbiter members invitations | arbiter members withdraw <invitation id>";

/** Every invitation, newest first, a page at a time (the list's ?before=). */
async function listInvitations(config, out) {
  let before = null;
  let listed = 0;
  do {
    const query = before === null ? "" : `?before=${before}`;
    const page = await request(config, "GET", `/api/v1/organization/invitations${query}`);
    for (const invitation of page.invitations)
      out(`${invitation.id}  ${invitation.email}  ${invitation.role}  ${invitation.status}  ${invitation.expiresAt}`);
    listed += page.invitations.length;
    before = page.nextBefore;
  } while (before !== null);
  if (listed === 0) out("No invitations: arbiter members invite <email> --role <role> makes one.");
}

export async function members(values, positionals, env, out) {
  const [action, email] = positionals;
  const config = await settings(values, env, `arbiter members ${action ?? ""}`.trim(), ["org.admin"], {
    needsProject: false,
  });
  const path = (address) => `/api/v1/organization/members/${encodeURIComponent(address)}`;
  const json = (body) => new TextEncoder().encode(JSON.stringify(body));
  if (action === "list") {
    const answer = await request(config, "GET", "/api/v1/organization/members");
    if (answer.members.length === 0) out("No members yet: people appear here once they sign in or are added.");
    for (const member of answer.members) out(`${member.email}  ${member.role}  ${member.status}`);
    return EXIT.approved;
  }
  if (action === "invitations") {
    await listInvitations(config, out);
    return EXIT.approved;
  }
  if (!email) fail(USAGE);
  if (action === "withdraw") {
    const answer = await request(config, "DELETE", `/api/v1/organization/invitations/${encodeURIComponent(email)}`);
    out(
      `The invitation of ${answer.invitation.email} (${answer.invitation.id}) was withdrawn: its link no longer works.`,
    );
    return EXIT.approved;
  }
  if (action === "add") {
    if (!values.role) fail("Say which role: arbiter members add <email> --role <role>.");
    const answer = await request(config, "PUT", path(email), json({ role: values.role }), "application/json");
    out(
      `${answer.member.email} is a member with the role ${answer.member.role}${answer.grantsRevoked ? ` (${answer.grantsRevoked} grant(s) beyond it revoked)` : ""}.`,
    );
    return EXIT.approved;
  }
  if (action === "remove") {
    const answer = await request(config, "DELETE", path(email));
    out(`${answer.member.email} was removed; ${answer.grantsRevoked} grant(s) revoked.`);
    return EXIT.approved;
  }
  if (action === "invite") {
    if (!values.role) fail("Say which role: arbiter members invite <email> --role <role>.");
    const answer = await request(
      config,
      "POST",
      "/api/v1/organization/invitations",
      json({ email, role: values.role }),
      "application/json",
    );
    out(answer.notice);
    out(answer.link);
    return EXIT.approved;
  }
  fail(USAGE);
}
