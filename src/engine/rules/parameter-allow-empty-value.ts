import { locate, type ConformanceRule } from "./rule";
import { describeParameter, pairParameters } from "../diff/parameters";

/** A parameter the contract lets clients send empty (`allowEmptyValue`, as in `?flag=`) is accepted empty by the implementation. */
export const parameterAllowEmptyValue: ConformanceRule = {
  kind: "conformance",
  id: "parameter-allow-empty-value",
  defaultSeverity: "error",
  purpose: "Parameters the contract allows empty (allowEmptyValue) are allowed empty by the implementation.",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#parameter-object (allowEmptyValue)",
  check(context) {
    for (const pair of context.comparedPairs) {
      for (const [contract, snapshot] of pairParameters(pair).both) {
        if (contract.definition.allowEmptyValue !== true || snapshot.definition.allowEmptyValue === true) continue;
        context.report(
          locate(pair.contract, `${contract.pointer}/allowEmptyValue`),
          `${describeParameter(contract)}: the contract allows an empty value (allowEmptyValue) but the implementation does not, so a client sending it empty is refused`,
        );
      }
    }
  },
};
