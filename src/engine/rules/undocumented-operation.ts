import { locate, type ConformanceRule } from "./rule";

/**
 * The implementation exposes nothing the contract does not declare: the contract is the source of truth
 * (contract-first), so an error by default. An organization that lets implementations run ahead of their
 * contract relaxes it in policies/conformance.json: `"rules": { "undocumented-operation": "warning" }` (or
 * "off"), or an exemption for the operations concerned; the verdict's message says so.
 */
export const undocumentedOperation: ConformanceRule = {
  kind: "conformance",
  id: "undocumented-operation",
  defaultSeverity: "error",
  purpose: "The implementation exposes no operation the contract does not declare.",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#paths-object",
  check(context) {
    for (const operation of context.matching.undocumented) {
      context.report(
        locate(operation),
        `the implementation exposes ${operation.label}, which the contract does not declare: add it to the contract or remove it (an organization that allows operations ahead of the contract sets "undocumented-operation" to "warning" or adds an exemption in policies/conformance.json)`,
      );
    }
  },
};
