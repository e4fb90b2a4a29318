/**
 * What the caller's organization stores against its quota (scope contracts.read): database and bucket bytes, each
 * project's counts, documents and retention policy (a CI key sees only its projects), and the last retention runs.
 * docs/storage.md "When storage fills" says what to do as it grows. An administrator (org.admin) runs retention now
 * after shortening it, instead of waiting for the next run.
 */
import { Failure } from "../core/failure";
import { runRetentionNow, storageReport } from "../contracts/services/storage";
import { afterQuery, json, unpagedLimit } from "./contracts-http";
import type { ApiRoute } from "./router";

/** Projects whose storage the answer to a retention run lists; `nextAfter` names where GET /api/v1/storage goes on. */
const RUN_ANSWER_PROJECTS = 100;

export const storageRoutes: ApiRoute[] = [
  {
    method: "GET",
    path: "/api/v1/storage",
    requiredScopes: ["contracts.read"],
    async handle({ env, principal, request }) {
      const url = new URL(request.url);
      const { limit } = unpagedLimit(url);
      const visible = principal.projects && !principal.projects.includes("*") ? principal.projects : null;
      return json({
        storage: await storageReport(env, principal.organizationId, visible, { limit, after: afterQuery(url) }),
      });
    },
  },
  {
    method: "POST",
    path: "/api/v1/storage/retention-runs",
    requiredScopes: ["org.admin"],
    async handle({ env, principal }) {
      const ran = await runRetentionNow({ env, principal });
      if (!ran)
        throw new Failure(
          "not_found",
          "Your organization is not in the directory any more.",
          {},
          "unknown_organization",
        );
      // The storage after the run: the organization's totals and its first projects (GET /api/v1/storage pages on).
      const storage = await storageReport(env, principal.organizationId, null, { limit: RUN_ANSWER_PROJECTS });
      return json({ run: ran.run, projectsPending: ran.projectsPending, storage });
    },
  },
];
