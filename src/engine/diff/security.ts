/**
 * Security requirements of a matched operation pair, read once and shared by the security rules
 * (security-requirements, security-scopes-fewer, security-scheme-flows).
 *
 * Schemes are compared by what a client has to send, not by their names (one generator calls it "Bearer", a
 * contract "oauth"): HTTP bearer, OAuth 2 and OpenID Connect all mean a bearer token; an API key is identified by
 * where it goes and its name. The scheme objects are kept beside the kind so that flows and discovery URLs can be
 * compared where both sides use OAuth 2 or OpenID Connect.
 */
import { isRecord } from "../normalize/normalize-pointer";
import type { DocumentIndex, IndexedOperation, OperationPair } from "../normalize/normalize-document";

export interface RequirementPart {
  scopes: Set<string>;
  /** The resolved scheme objects behind this kind (two names may mean one kind). */
  schemes: Record<string, unknown>[];
}

/** One alternative of a security requirement list: every kind it needs, with the scopes asked for each. */
export type Requirement = Map<string, RequirementPart>;

function schemeObject(index: DocumentIndex, name: string): Record<string, unknown> | undefined {
  const schemes =
    isRecord(index.document.components) && isRecord(index.document.components.securitySchemes)
      ? index.document.components.securitySchemes
      : {};
  const scheme = index.resolver.deref(schemes[name]);
  return isRecord(scheme) ? scheme : undefined;
}

function schemeKind(scheme: Record<string, unknown> | undefined, name: string): string {
  if (!scheme) return `undefined scheme "${name}"`;
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

export function requirementsOf(index: DocumentIndex, operation: IndexedOperation): Requirement[] {
  return (operation.security ?? []).map((requirement) => {
    const kinds: Requirement = new Map();
    for (const [name, scopes] of Object.entries(requirement)) {
      const scheme = schemeObject(index, name);
      const kind = schemeKind(scheme, name);
      const part = kinds.get(kind) ?? { scopes: new Set<string>(), schemes: [] };
      for (const scope of scopes) part.scopes.add(scope);
      if (scheme) part.schemes.push(scheme);
      kinds.set(kind, part);
    }
    return kinds;
  });
}

export function isAnonymous(alternatives: readonly Requirement[]): boolean {
  return alternatives.length === 0 || alternatives.some((requirement) => requirement.size === 0);
}

export function describeRequirement(requirement: Requirement): string {
  return [...requirement]
    .map(([kind, part]) => (part.scopes.size > 0 ? `${kind} with scopes ${[...part.scopes].join(" ")}` : kind))
    .join(" and ");
}

function hasType(part: RequirementPart, type: string): boolean {
  return part.schemes.some((scheme) => scheme.type === type);
}

/**
 * An OpenID Connect requirement with no scopes asks for any signed-in user; it does not stand in for an OAuth 2
 * requirement with scopes (the contract's scoped grant is then checked by nobody).
 */
export function oidcStandsInForScopedOAuth(contract: RequirementPart, snapshot: RequirementPart): boolean {
  return (
    contract.scopes.size > 0 &&
    hasType(contract, "oauth2") &&
    !hasType(contract, "openIdConnect") &&
    snapshot.scopes.size === 0 &&
    hasType(snapshot, "openIdConnect") &&
    !hasType(snapshot, "oauth2")
  );
}

/**
 * A client holding what `offered` (a contract alternative) asks for is let in by `needed` (an implementation
 * alternative): every kind and scope the implementation needs is one the client has.
 */
export function satisfies(offered: Requirement, needed: Requirement): boolean {
  for (const [kind, part] of needed) {
    const available = offered.get(kind);
    if (!available) return false;
    for (const scope of part.scopes) if (!available.scopes.has(scope)) return false;
    if (oidcStandsInForScopedOAuth(available, part)) return false;
  }
  return true;
}

function sameScopes(a: Requirement, b: Requirement): boolean {
  if (a.size !== b.size) return false;
  for (const [kind, part] of a) {
    const other = b.get(kind);
    if (!other || other.scopes.size !== part.scopes.size) return false;
    for (const scope of part.scopes) if (!other.scopes.has(scope)) return false;
  }
  return true;
}

export interface PairedRequirement {
  contract: Requirement;
  /** The implementation alternative the contract's clients get in by: an identical one first, else the first that lets them in. */
  snapshot: Requirement | undefined;
}

export interface SecurityComparison {
  contract: Requirement[];
  snapshot: Requirement[];
  contractAnonymous: boolean;
  snapshotAnonymous: boolean;
  paired: PairedRequirement[];
}

const comparisons = new WeakMap<OperationPair, SecurityComparison>();

/** Both sides' requirements with each contract alternative paired to its implementation counterpart; once per pair. */
export function compareSecurity(
  contractIndex: DocumentIndex,
  snapshotIndex: DocumentIndex,
  pair: OperationPair,
): SecurityComparison {
  let comparison = comparisons.get(pair);
  if (!comparison) {
    const contract = requirementsOf(contractIndex, pair.contract);
    const snapshot = requirementsOf(snapshotIndex, pair.snapshot);
    const paired = contract.map((alternative) => ({
      contract: alternative,
      snapshot:
        snapshot.find((offered) => sameScopes(alternative, offered) && satisfies(alternative, offered)) ??
        snapshot.find((offered) => satisfies(alternative, offered)),
    }));
    comparison = {
      contract,
      snapshot,
      contractAnonymous: isAnonymous(contract),
      snapshotAnonymous: isAnonymous(snapshot),
      paired,
    };
    comparisons.set(pair, comparison);
  }
  return comparison;
}
