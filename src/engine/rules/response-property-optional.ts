import type { ConformanceRule } from "./rule";
import { reportResponseChanges } from "../diff/response-changes";

/**
 * A property the contract requires in a response is required by the implementation too, when the implementation
 * declares required properties at all: a schema that lists them and leaves this one out says it may omit it, and so
 * does a schema with no list in a document whose named schemas write `required` lists (its generator states what is
 * required, so no list means nothing is). A document that writes no `required` list anywhere says nothing, as many
 * generators write none.
 * The comparison is the schema diff's (diff/schema-diff.ts, change kind "required-optional"); this rule
 * reports it through diff/response-changes.ts.
 */
export const responsePropertyOptional: ConformanceRule = {
  kind: "conformance",
  id: "response-property-optional",
  defaultSeverity: "error",
  purpose:
    "A property the contract requires in a response is required by the implementation too (when its document declares required properties at all).",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-required-property-became-not-required)",
  check(context) {
    reportResponseChanges(context, "required-optional");
  },
};
