import { locate, type ConformanceRule } from "./rule";
import { isRecord } from "../normalize-pointer";
import type { DocumentIndex, IndexedOperation } from "../normalize-document";

/**
 * Security schemes are compared by what a client has to send, not by their names (one generator calls it
 * "Bearer", a contract "oauth"): HTTP bearer, OAuth 2 and OpenID Connect all mean a bearer token; an API key is
 * identified by where it goes and its name.
 */
function schemeKind(index: DocumentIndex, name: string): string {
  const schemes = isRecord(index.document.components) && isRecord(index.document.components.securitySchemes) ? index.document.components.securitySchemes : {};
  const scheme = index.resolver.deref(schemes[name]);
  if (!isRecord(scheme)) return `undefined scheme "${name}"`;
  switch (scheme.type) {
    case "http": {
      const kind = typeof scheme.scheme === "string" ? scheme.scheme.toLowerCase() : "";
      return kind === "bearer" ? "bearer token" : `HTTP ${kind}`;
    }
    case "oauth2":
    case "openIdConnect":
      return "bearer token";
    case "apiKey":
      return `API key in ${String(scheme.in)} "${String(scheme.name).toLowerCase()}"`;
    default:
      return String(scheme.type);
  }
}

type Requirement = Map<string, Set<string>>;

function requirements(index: DocumentIndex, operation: IndexedOperation): Requirement[] {
  return (operation.security ?? []).map((requirement) => {
    const kinds: Requirement = new Map();
    for (const [name, scopes] of Object.entries(requirement)) {
      const kind = schemeKind(index, name);
      const merged = kinds.get(kind) ?? new Set<string>();
      for (const scope of scopes) merged.add(scope);
      kinds.set(kind, merged);
    }
    return kinds;
  });
}

function isAnonymous(alternatives: Requirement[]): boolean {
  return alternatives.length === 0 || alternatives.some((requirement) => requirement.size === 0);
}

function describe(requirement: Requirement): string {
  return [...requirement].map(([kind, scopes]) => (scopes.size > 0 ? `${kind} with scopes ${[...scopes].join(" ")}` : kind)).join(" and ");
}

/** A client holding what `offered` asks for can also satisfy `needed`. */
function satisfies(offered: Requirement, needed: Requirement): boolean {
  for (const [kind, scopes] of needed) {
    const available = offered.get(kind);
    if (!available) return false;
    for (const scope of scopes) if (!available.has(scope)) return false;
  }
  return true;
}

/** Authentication the contract demands is demanded by the implementation, and nothing more. */
export const securityRequirements: ConformanceRule = {
  kind: "conformance",
  id: "security-requirements",
  defaultSeverity: "error",
  purpose: "The implementation's security requirements are those of the contract: no missing and no extra authentication.",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#security-requirement-object",
  check(context) {
    for (const pair of context.comparedPairs) {
      const contract = requirements(context.contract, pair.contract);
      const snapshot = requirements(context.snapshot, pair.snapshot);
      const location = locate(pair.contract, "/security");
      const contractAnonymous = isAnonymous(contract);
      const snapshotAnonymous = isAnonymous(snapshot);
      if (contractAnonymous && !snapshotAnonymous) {
        context.report(location, `the implementation requires ${snapshot.map(describe).join(" or ")} but the contract lets clients call this operation without authentication`);
        continue;
      }
      if (contractAnonymous) continue;
      if (snapshotAnonymous) {
        context.report(location, `the contract requires ${contract.map(describe).join(" or ")} but the implementation declares no authentication`);
        continue;
      }
      for (const alternative of contract) {
        if (!snapshot.some((offered) => satisfies(alternative, offered))) {
          context.report(location, `a client authenticated as the contract says (${describe(alternative)}) does not satisfy the implementation, which requires ${snapshot.map(describe).join(" or ")}`);
        }
      }
    }
  },
};
