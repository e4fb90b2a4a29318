/**
 * Accepted breaks of a project (src/contracts/services/acceptances.ts): list them with their state (contracts.read),
 * accept a break with a reason, an owner and an expiry, or revoke one (contracts.write). Each write is one audit
 * record of the router's governed call; the verdicts that apply an acceptance name it.
 */
import {
  acceptBreak,
  acceptBreakRequest,
  listAcceptedBreaks,
  revokeAcceptedBreak,
} from "../contracts/services/acceptances";
import { MAX_JSON_BODY_BYTES } from "../contracts/store/limits";
import { json, projectRoute, readJsonBody } from "./contracts-http";
import type { ApiRoute } from "./router";

export const acceptedBreakRoutes: ApiRoute[] = [
  projectRoute("GET", "/accepted-breaks", ["contracts.read"], async ({ env, principal, project }) =>
    json({ project, acceptedBreaks: await listAcceptedBreaks({ env, principal }, project) }),
  ),
  projectRoute("POST", "/accepted-breaks", ["contracts.write"], async ({ request, env, principal, project, note }) => {
    const body = await readJsonBody(request, MAX_JSON_BODY_BYTES, acceptBreakRequest);
    const { acceptance, created } = await acceptBreak({ env, principal }, project, body.data);
    note(
      `${created ? "accepted" : "already accepted"} ${acceptance.id} ${acceptance.fingerprint} until ${acceptance.expiresAt}`,
    );
    // 201 both times: a retry gets the same answer, `created` says whether this call recorded it.
    return json({ acceptedBreak: acceptance, created }, 201);
  }),
  projectRoute(
    "DELETE",
    "/accepted-breaks/:id",
    ["contracts.write"],
    async ({ env, principal, project, params, note }) => {
      const revoked = await revokeAcceptedBreak({ env, principal }, project, params.id ?? "");
      note(`revoked ${revoked.id}`);
      return json({ acceptedBreak: revoked });
    },
  ),
];
