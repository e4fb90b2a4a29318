import { locate, type ConformanceRule } from "./rule";
import { pairResponseHeaders } from "../diff/response-headers";

/**
 * A response header the contract requires is declared, and required, by the implementation: clients read it
 * (Location after a create, a rate-limit header) and break when it may be absent.
 */
export const responseHeaderMissing: ConformanceRule = {
  kind: "conformance",
  id: "response-header-missing",
  defaultSeverity: "error",
  purpose: "A response header the contract requires is declared and required by the implementation.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (response-required-header-removed, response-header-became-optional)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const header of pairResponseHeaders(context.contract, context.snapshot, pair)) {
        if (!header.contract.required) continue;
        if (!header.snapshot) {
          context.report(
            locate(pair.contract, header.pointer),
            `status ${header.status}: the contract requires response header "${header.contract.name}" but the implementation does not declare it`,
          );
        } else if (!header.snapshot.required) {
          context.report(
            locate(pair.contract, header.pointer),
            `status ${header.status}: response header "${header.contract.name}" is required by the contract but optional in the implementation, so it may be absent`,
          );
        }
      }
    }
  },
};
