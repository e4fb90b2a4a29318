/**
 * Every file under policies/ that the Worker bundles, keyed by its path relative to policies/.
 * test/node/policy-bundle.test.ts fails when a file on disk is missing here, so adding a policy file
 * means adding one import and one entry below.
 */
import scopes from "../../policies/scopes.json";
import organizations from "../../policies/organizations.json";
import devUsers from "../../policies/dev-users.json";
import rateLimits from "../../policies/rate-limits.json";
import conformance from "../../policies/conformance.json";
import constitution from "../../policies/constitution.json";

export type PolicyFiles = Readonly<Record<string, unknown>>;

export const bundledPolicyFiles: PolicyFiles = Object.freeze({
  "scopes.json": scopes,
  "organizations.json": organizations,
  "dev-users.json": devUsers,
  "rate-limits.json": rateLimits,
  "conformance.json": conformance,
  "constitution.json": constitution,
});
