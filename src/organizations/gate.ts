/**
 * The organization gate in front of both protected resources (/mcp in both eras, the REST API and /chat): a token
 * or CI key of an organization that is suspended, being deleted, deleted or unknown to the directory is refused
 * before any handler runs, so suspension takes effect on every lane, session and key at once (within the directory
 * cache's bound on other isolates, src/directory/client.ts). A warm isolate answers from its cache: no round trip.
 */
import type { OAuthResourceContext, OAuthResourceHandler } from "@cloudflare/workers-oauth-provider";
import { failureProblem } from "../core/problem";
import { Failure } from "../core/failure";
import type { Env } from "../env";
import type { GrantProps } from "../oauth/grant-props";
import { DirectoryUnavailable, resolveOrganization } from "../directory/client";

type Handler = Extract<OAuthResourceHandler<Env, GrantProps>, { fetch: unknown }>;

/** Why this organization may not be served now, as a Failure; undefined when it may. */
export async function organizationRefusal(env: Env, organizationId: string): Promise<Failure | undefined> {
  let resolved: Awaited<ReturnType<typeof resolveOrganization>>;
  try {
    resolved = await resolveOrganization(env, organizationId);
  } catch (error) {
    if (error instanceof DirectoryUnavailable)
      return new Failure("unavailable", error.message, {}, "directory_unavailable");
    throw error;
  }
  const status = resolved?.record.status;
  if (status === "active") return undefined;
  if (status === "suspended")
    return new Failure(
      "forbidden",
      `Organization "${organizationId}" is suspended on this deployment: its tokens, CI keys and sessions are refused until the operator resumes it.`,
      {},
      "organization_suspended",
    );
  return new Failure(
    "forbidden",
    `Organization "${organizationId}" no longer exists on this deployment (deleted, or being deleted).`,
    {},
    "organization_deleted",
  );
}

/** `handler`, refused for requests whose grant belongs to an organization that may not be served. */
export function withOrganizationGate(handler: Handler): Handler {
  return {
    async fetch(request, env, ctx) {
      const { props } = ctx as OAuthResourceContext<GrantProps>;
      const refusal = await organizationRefusal(env, props.organizationId);
      return refusal ? failureProblem(refusal) : handler.fetch(request, env, ctx);
    },
  };
}
