/**
 * Contract evolution reuses the conformance rules with the version clients rely on as "the contract" and the new
 * version as "the implementation". A person reading what a contract change breaks thinks in versions, so the
 * findings are worded that way: "v2 requires query parameter `tenant`, which v1 does not define", not "the
 * implementation requires ...". Pure text: the rules keep one wording each.
 */
import type { Verdict } from "../types";

export interface EvolutionNames {
  /** The version clients rely on, e.g. "v1". */
  from: string;
  /** The version they will get, e.g. "v2" or "the edited contract". */
  to: string;
}

const ROLE = /\b([Tt])he (contract|implementation)('s)?\b/g;

export function inVersionTerms(message: string, names: EvolutionNames): string {
  return message.replace(
    ROLE,
    (_match, _t: string, role: string, possessive: string | undefined) =>
      `${role === "contract" ? names.from : names.to}${possessive ?? ""}`,
  );
}

export function verdictInVersionTerms(verdict: Verdict, names: EvolutionNames): Verdict {
  return {
    ...verdict,
    violations: verdict.violations.map((violation) => ({
      ...violation,
      message: inVersionTerms(violation.message, names),
    })),
  };
}
