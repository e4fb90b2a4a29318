import { locate, type ConformanceRule } from "./rule";
import { describeParameter, pairParameters } from "../diff/parameters";

/** A parameter the contract defines must be read by the implementation. */
export const parameterMissing: ConformanceRule = {
  kind: "conformance",
  id: "parameter-missing",
  defaultSeverity: "error",
  purpose: "Every request parameter the contract defines is accepted by the implementation.",
  enforces: "https://github.com/oasdiff/oasdiff/blob/main/BREAKING-CHANGES-EXAMPLES.md (request-parameter-removed)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const parameter of pairParameters(pair).onlyContract) {
        context.report(
          locate(pair.contract, parameter.pointer),
          `the contract defines ${describeParameter(parameter)} but the implementation does not accept it`,
        );
      }
    }
  },
};
