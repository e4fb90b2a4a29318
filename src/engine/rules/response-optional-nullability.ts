import { mediaTypeEssence } from "../diff/media-types";
import type { ConformanceRule } from "./rule";
import { reportResponseChanges } from "../diff/response-changes";

/**
 * The members RFC 9457 defines for every problem details object, all optional. ASP.NET Core's ProblemDetails
 * declares them as nullable (`string?`) yet never writes a null (its serializer ignores null members), so
 * for these members "may be null" in a generated document means "may be absent", which the contract allows.
 */
const PROBLEM_DETAILS_MEMBERS: ReadonlySet<string> = new Set([
  "/properties/type",
  "/properties/title",
  "/properties/status",
  "/properties/detail",
  "/properties/instance",
]);

function isProblemDetails(mediaType: string): boolean {
  return mediaTypeEssence(mediaType) === "application/problem+json";
}

/**
 * Null the contract does not allow, in a response property that neither side requires. Kept apart from
 * response-nullability (an error) because generators such as ASP.NET Core mark every reference-typed member
 * nullable; the standard members of a problem+json body are not reported at all (see PROBLEM_DETAILS_MEMBERS).
 * The comparison is the schema diff's (diff/schema-diff.ts, change kind "nullable-optional"); this rule
 * reports it through diff/response-changes.ts and leaves out the problem details members.
 */
export const responseOptionalNullability: ConformanceRule = {
  kind: "conformance",
  id: "response-optional-nullability",
  defaultSeverity: "warning",
  purpose: "Optional response properties are null only where the contract allows it.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-property-became-nullable)",
  check(context) {
    reportResponseChanges(context, "nullable-optional", {
      skip: (body, change) =>
        isProblemDetails(body.contractMediaType) &&
        isProblemDetails(body.snapshotMediaType) &&
        PROBLEM_DETAILS_MEMBERS.has(change.pointer),
      note: "(the property is optional on both sides)",
    });
  },
};
