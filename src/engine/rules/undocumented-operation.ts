import { locate, type ConformanceRule } from "./rule";

/** The implementation exposes nothing the contract does not declare: the contract is the source of truth. */
export const undocumentedOperation: ConformanceRule = {
  kind: "conformance",
  id: "undocumented-operation",
  defaultSeverity: "error",
  purpose: "The implementation exposes no operation the contract does not declare.",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#paths-object",
  check(context) {
    for (const operation of context.matching.undocumented) {
      context.report(locate(operation), `the implementation exposes ${operation.label}, which the contract does not declare: add it to the contract or remove it`);
    }
  },
};
