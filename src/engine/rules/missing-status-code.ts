import { locate, type ConformanceRule } from "./rule";
import { matchingStatusKey, statusKeys } from "../diff/operation-parts";
import { escapeToken } from "../normalize/normalize-pointer";

/** A response the contract declares (a code or a range; not `default`) must be declared by the implementation. */
export const missingStatusCode: ConformanceRule = {
  kind: "conformance",
  id: "missing-status-code",
  defaultSeverity: "error",
  purpose: "Every status code the contract declares for an operation is declared by the implementation.",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#responses-object",
  check(context) {
    for (const pair of context.comparedPairs) {
      const snapshotKeys = statusKeys(pair.snapshot);
      for (const key of statusKeys(pair.contract)) {
        if (key === "default") continue;
        if (matchingStatusKey(key, snapshotKeys) === undefined) {
          context.report(
            locate(pair.contract, `/responses/${escapeToken(key)}`),
            `the contract declares status ${key} but the implementation does not (it declares ${snapshotKeys.join(", ") || "no responses"})`,
          );
        }
      }
    }
  },
};
