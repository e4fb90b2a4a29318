/**
 * The usage index's ingest route (src/contracts/services/usage.ts): a gateway or the implementation's middleware
 * posts one day's counts of what real traffic exercised (operations, statuses, parameter names, property paths;
 * never a value), which verdicts then quote as evidence. Scope snapshots.write, like every CI upload.
 */
import { Failure } from "../core/failure";
import { recordUsageCounts, usageCountsOf, usageIngestRequest } from "../contracts/services/usage";
import { json, projectRoute, readJsonBody } from "./contracts-http";
import type { ApiRoute } from "./router";

/** A day of counts: 5,000 entries of a few hundred bytes each. */
export const MAX_USAGE_BODY_BYTES = 2 * 1024 * 1024;

export const usageRoutes: ApiRoute[] = [
  projectRoute("POST", "/usage", ["snapshots.write"], async ({ request, env, principal, project, note }) => {
    const body = await readJsonBody(request, MAX_USAGE_BODY_BYTES, usageIngestRequest);
    const counted = usageCountsOf(body.data);
    if ("problem" in counted)
      throw new Failure("invalid_input", `Invalid usage counts: ${counted.problem}.`, {}, "invalid_usage");
    const counts = await recordUsageCounts({ env, principal }, project, body.data.day, counted.counts);
    note(`${counts} usage counts for ${body.data.day}`);
    return json({ project, day: body.data.day, counts }, 201);
  }),
];
