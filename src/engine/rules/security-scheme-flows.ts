import { isRecord } from "../normalize/normalize-pointer";
import { locate, type ConformanceRule } from "./rule";
import { compareSecurity, type RequirementPart } from "../diff/security";

const FLOWS = ["implicit", "password", "clientCredentials", "authorizationCode"] as const;
const FLOW_URLS = ["authorizationUrl", "tokenUrl", "refreshUrl"] as const;

function firstOfType(part: RequirementPart, type: string): Record<string, unknown> | undefined {
  return part.schemes.find((scheme) => scheme.type === type);
}

function oauthDifferences(contract: Record<string, unknown>, snapshot: Record<string, unknown>): string[] {
  const contractFlows = isRecord(contract.flows) ? contract.flows : {};
  const snapshotFlows = isRecord(snapshot.flows) ? snapshot.flows : {};
  const found: string[] = [];
  for (const flow of FLOWS) {
    const expected = contractFlows[flow];
    if (!isRecord(expected)) continue;
    const actual = snapshotFlows[flow];
    if (!isRecord(actual)) {
      const offered = FLOWS.filter((name) => isRecord(snapshotFlows[name]));
      found.push(
        `the contract's OAuth 2 ${flow} flow is not offered by the implementation (it offers ${offered.length > 0 ? offered.join(", ") : "no flow"}), so clients using it cannot obtain a token`,
      );
      continue;
    }
    for (const url of FLOW_URLS) {
      if (expected[url] === undefined && actual[url] === undefined) continue;
      if (expected[url] !== actual[url]) {
        found.push(
          `OAuth 2 ${flow} flow: ${url} is ${JSON.stringify(expected[url] ?? null)} in the contract but ${JSON.stringify(actual[url] ?? null)} in the implementation, so clients ask the wrong server`,
        );
      }
    }
  }
  return found;
}

/**
 * Where both sides use OAuth 2, every flow of the contract is offered with the same authorization, token and
 * refresh URLs; where both use OpenID Connect, the discovery URL is the same. A client configured from the
 * contract otherwise obtains its token from the wrong place. Requirements are paired in diff/security.ts.
 */
export const securitySchemeFlows: ConformanceRule = {
  kind: "conformance",
  id: "security-scheme-flows",
  defaultSeverity: "error",
  purpose: "OAuth 2 flows and their URLs, and OpenID Connect discovery URLs, are those of the contract.",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#oauth-flows-object",
  check(context) {
    for (const pair of context.comparedPairs) {
      const { paired } = compareSecurity(context.contract, context.snapshot, pair);
      const reported = new Set<string>();
      for (const { contract, snapshot } of paired) {
        if (!snapshot) continue;
        for (const [kind, part] of contract) {
          const counterpart = snapshot.get(kind);
          if (!counterpart) continue;
          const messages: string[] = [];
          const contractOAuth = firstOfType(part, "oauth2");
          const snapshotOAuth = firstOfType(counterpart, "oauth2");
          if (contractOAuth && snapshotOAuth) messages.push(...oauthDifferences(contractOAuth, snapshotOAuth));
          const contractOidc = firstOfType(part, "openIdConnect");
          const snapshotOidc = firstOfType(counterpart, "openIdConnect");
          if (contractOidc && snapshotOidc && contractOidc.openIdConnectUrl !== snapshotOidc.openIdConnectUrl) {
            messages.push(
              `OpenID Connect discovery URL is ${JSON.stringify(contractOidc.openIdConnectUrl ?? null)} in the contract but ${JSON.stringify(snapshotOidc.openIdConnectUrl ?? null)} in the implementation`,
            );
          }
          for (const message of messages) {
            if (reported.has(message)) continue;
            reported.add(message);
            context.report(locate(pair.contract, "/security"), message);
          }
        }
      }
    }
  },
};
