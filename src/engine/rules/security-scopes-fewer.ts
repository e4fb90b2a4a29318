import { locate, type ConformanceRule } from "./rule";
import { compareSecurity, describeRequirement } from "./support/security";

/**
 * The implementation asks for every scope the contract asks for. Fewer scopes let clients in that the contract
 * keeps out; it breaks no client, so it is a warning (an error is security-requirements' extra scopes).
 * Requirements are read and paired in rules/support/security.ts.
 */
export const securityScopesFewer: ConformanceRule = {
  kind: "conformance",
  id: "security-scopes-fewer",
  defaultSeverity: "warning",
  purpose: "The implementation requires every scope the contract requires (fewer scopes let in clients the contract keeps out).",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#security-requirement-object",
  check(context) {
    for (const pair of context.comparedPairs) {
      const { contractAnonymous, snapshotAnonymous, paired } = compareSecurity(context.contract, context.snapshot, pair);
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
          `the contract requires ${describeRequirement(contract)} but the implementation only requires ${describeRequirement(snapshot)}: scopes ${dropped.join(" ")} are not checked, so clients without them get in`,
        );
      }
    }
  },
};
