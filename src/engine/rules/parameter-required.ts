import { locate, type ConformanceRule } from "./rule";
import { describeParameter, pairParameters } from "../diff/parameters";

/** A parameter the contract makes optional must stay optional in the implementation. */
export const parameterRequired: ConformanceRule = {
  kind: "conformance",
  id: "parameter-required",
  defaultSeverity: "error",
  purpose: "Parameters optional in the contract are optional in the implementation.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (request-parameter-became-required)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const [contract, snapshot] of pairParameters(pair).both) {
        if (!contract.required && snapshot.required) {
          context.report(
            locate(pair.contract, contract.pointer),
            `${describeParameter(contract)} is optional in the contract but required by the implementation`,
          );
        }
      }
    }
  },
};
