import { locate, type ConformanceRule } from "./rule";
import { compareSecurity, describeRequirement } from "../diff/security";

/**
 * The implementation asks for every scope the contract asks for. With a scope dropped from a requirement, no
 * client is refused (a token holding the old scopes still holds the fewer ones): clients are over-granted, let in
 * where the contract keeps them out, so the operation's authorization is weaker than the contract promises. That
 * is a security regression, so it is an error, like security-requirements' missing authentication.
 * Requirements are read and paired in diff/security.ts.
 */
export const securityScopesFewer: ConformanceRule = {
  kind: "conformance",
  id: "security-scopes-fewer",
  defaultSeverity: "error",
  purpose:
    "The implementation requires every scope the contract requires (fewer scopes over-grant: clients the contract keeps out get in).",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#security-requirement-object",
  check(context) {
    for (const pair of context.comparedPairs) {
      const { contractAnonymous, snapshotAnonymous, paired } = compareSecurity(
        context.contract,
        context.snapshot,
        pair,
      );
      if (contractAnonymous || snapshotAnonymous) continue;
      for (const { contract, snapshot } of paired) {
        if (!snapshot) continue;
        const dropped: string[] = [];
        for (const [kind, part] of contract) {
          const kept = snapshot.get(kind)?.scopes ?? new Set<string>();
          for (const scope of part.scopes) if (!kept.has(scope)) dropped.push(scope);
        }
        if (dropped.length === 0) continue;
        context.report(
          locate(pair.contract, "/security"),
          `the contract requires ${describeRequirement(contract)} but the implementation only requires ${describeRequirement(snapshot)}: scopes ${dropped.join(" ")} are not checked, so clients without them get in (over-granted: the operation's authorization is weaker than the contract's)`,
        );
      }
    }
  },
};
