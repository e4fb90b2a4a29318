import { locate, type ConformanceRule } from "./rule";
import { matchingStatusKey, statusKeys } from "../diff/operation-parts";
import { escapeToken } from "../normalize/normalize-pointer";

/**
 * A status code the implementation declares that the contract does not. Codes frameworks add on their own
 * (policies/conformance.json `frameworkStatusCodes`, e.g. FastAPI's 422, ASP.NET Core's 400) are not reported.
 */
export const undocumentedStatusCode: ConformanceRule = {
  kind: "conformance",
  id: "undocumented-status-code",
  defaultSeverity: "warning",
  purpose: "The implementation declares no status code the contract lacks, except framework error codes.",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#responses-object",
  check(context) {
    for (const pair of context.comparedPairs) {
      const contractKeys = statusKeys(pair.contract);
      if (contractKeys.includes("default")) continue;
      for (const key of statusKeys(pair.snapshot)) {
        if (key === "default" || context.frameworkStatusCodes.has(key.toUpperCase())) continue;
        if (matchingStatusKey(key, contractKeys) === undefined) {
          context.report(
            locate(pair.contract, `/responses/${escapeToken(key)}`),
            `the implementation declares status ${key}, which the contract does not document for this operation`,
          );
        }
      }
    }
  },
};
