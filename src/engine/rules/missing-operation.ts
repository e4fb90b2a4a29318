import { locate, type ConformanceRule } from "./rule";

/** An operation the contract declares must be implemented (matched by method and path template). */
export const missingOperation: ConformanceRule = {
  kind: "conformance",
  id: "missing-operation",
  defaultSeverity: "error",
  purpose: "Every operation in the contract is implemented.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (api-path-removed, api-removed)",
  check(context) {
    for (const operation of context.matching.missing) {
      context.report(
        locate(operation),
        `the contract declares ${operation.label} but the implementation does not expose it`,
      );
    }
  },
};
