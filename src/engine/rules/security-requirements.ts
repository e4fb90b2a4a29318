import { locate, type ConformanceRule } from "./rule";
import { compareSecurity, describeRequirement, oidcStandsInForScopedOAuth, type Requirement } from "../diff/security";

/** Why no implementation alternative lets a contract client in, when it is the OpenID Connect stand-in. */
function oidcReason(contract: Requirement, snapshot: readonly Requirement[]): string {
  for (const offered of snapshot) {
    for (const [kind, part] of offered) {
      const available = contract.get(kind);
      if (available && oidcStandsInForScopedOAuth(available, part)) {
        return `; an OpenID Connect requirement with no scopes does not satisfy the contract's OAuth 2 scopes ${[...available.scopes].join(" ")}`;
      }
    }
  }
  return "";
}

/**
 * Authentication the contract demands is demanded by the implementation, and nothing more: no missing or extra
 * authentication, no scope the contract does not ask for. Requiring fewer scopes is security-scopes-fewer's.
 * Requirements are read in diff/security.ts.
 */
export const securityRequirements: ConformanceRule = {
  kind: "conformance",
  id: "security-requirements",
  defaultSeverity: "error",
  purpose:
    "The implementation's security requirements are those of the contract: no missing and no extra authentication or scopes.",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#security-requirement-object",
  check(context) {
    for (const pair of context.comparedPairs) {
      const { contract, snapshot, contractAnonymous, snapshotAnonymous, paired } = compareSecurity(
        context.contract,
        context.snapshot,
        pair,
      );
      const location = locate(pair.contract, "/security");
      if (contractAnonymous && !snapshotAnonymous) {
        context.report(
          location,
          `the implementation requires ${snapshot.map(describeRequirement).join(" or ")} but the contract lets clients call this operation without authentication`,
        );
        continue;
      }
      if (contractAnonymous) continue;
      if (snapshotAnonymous) {
        context.report(
          location,
          `the contract requires ${contract.map(describeRequirement).join(" or ")} but the implementation declares no authentication`,
        );
        continue;
      }
      for (const { contract: alternative, snapshot: counterpart } of paired) {
        if (counterpart) continue;
        context.report(
          location,
          `a client authenticated as the contract says (${describeRequirement(alternative)}) does not satisfy the implementation, which requires ${snapshot.map(describeRequirement).join(" or ")}${oidcReason(alternative, snapshot)}`,
        );
      }
    }
  },
};
