import { locate, type ConformanceRule } from "./rule";
import { isRecord } from "../normalize/normalize-pointer";

/** The implementation does not require a request body the contract makes optional or does not define. */
export const requestBodyRequired: ConformanceRule = {
  kind: "conformance",
  id: "request-body-required",
  defaultSeverity: "error",
  purpose: "A request body optional (or absent) in the contract is not required by the implementation.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (request-body-became-required)",
  check(context) {
    for (const pair of context.comparedPairs) {
      const snapshotBody = context.snapshot.resolver.deref(pair.snapshot.operation.requestBody);
      if (!isRecord(snapshotBody) || snapshotBody.required !== true) continue;
      const contractBody = context.contract.resolver.deref(pair.contract.operation.requestBody);
      if (!isRecord(contractBody)) {
        context.report(
          locate(pair.contract, "/requestBody"),
          "the implementation requires a request body but the contract defines none",
        );
      } else if (contractBody.required !== true) {
        context.report(
          locate(pair.contract, "/requestBody/required"),
          "the request body is optional in the contract but required by the implementation",
        );
      }
    }
  },
};
