import { locate, type ConformanceRule } from "./rule";
import { describeParameter, pairParameters } from "../diff/parameters";

/** The implementation must not require a parameter the contract does not define: clients following it would fail. */
export const parameterNewRequired: ConformanceRule = {
  kind: "conformance",
  id: "parameter-new-required",
  defaultSeverity: "error",
  purpose: "The implementation requires no parameter the contract does not define.",
  enforces:
    "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (new-required-request-parameter)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const parameter of pairParameters(pair).onlySnapshot) {
        if (!parameter.required || parameter.in === "path") continue;
        context.report(
          locate(pair.contract, parameter.pointer),
          `the implementation requires ${describeParameter(parameter)}, which the contract does not define`,
        );
      }
    }
  },
};
