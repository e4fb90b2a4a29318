/**
 * Everything that can stop an OpenID Connect sign-in, as tagged values, and the one place that turns them
 * into pages. Messages are safe to show: they never contain the client secret, codes or tokens.
 */
import { errorPage, html, type SafeHtml } from "../lib/html";
import { logWarn } from "../lib/log";
import { Failure, type FailureKind } from "../core/failure";

/**
 * Why a sign-in stopped (the failure's `code`), with the governed core's failure kind it is (which gives the page's
 * HTTP status, src/core/failure.ts) and the page's title. A `Record`, so a reason without its row does not compile.
 */
const OIDC_FAILURES = {
  /** The operator's settings are wrong or incomplete. */
  configuration: { kind: "unavailable", title: "OpenID Connect sign-in is not configured correctly" },
  /** The provider could not be reached (network error, timeout). */
  "provider-unreachable": { kind: "upstream_error", title: "The identity provider could not be reached" },
  /** The provider answered with something unusable (bad discovery document, malformed token response). */
  "provider-invalid": { kind: "upstream_error", title: "The identity provider gave an unusable answer" },
  /** The provider sent the user back with `error=` (e.g. the user cancelled). */
  "provider-error": { kind: "invalid_input", title: "The identity provider did not sign you in" },
  /** The browser came back without a valid, unexpired sign-in cookie (expired, other browser, replay). */
  "flow-expired": { kind: "invalid_input", title: "This sign-in attempt has expired" },
  /** The callback's `state` (or `iss`) does not belong to this browser's sign-in. */
  "state-mismatch": { kind: "invalid_input", title: "This sign-in response does not belong to your browser" },
  /** The token endpoint refused the code. */
  "token-refused": { kind: "upstream_error", title: "The identity provider refused the sign-in" },
  /** The ID token failed verification (signature, issuer, audience, nonce, expiry, algorithm). */
  "id-token-invalid": {
    kind: "unauthenticated",
    title: "Sign-in refused: the identity provider's ID token is not valid",
  },
  /** The verified user maps to no organization served here. */
  "no-organization": { kind: "forbidden", title: "Your account is not part of an organization on this server" },
  /** The verified user maps to an organization that signs its members in with its own provider only. */
  "own-provider": { kind: "forbidden", title: "Your organization signs in with its own identity provider" },
  /** The verified user maps to several organizations. */
  "several-organizations": { kind: "forbidden", title: "Your account matches more than one organization" },
} as const satisfies Record<string, { kind: FailureKind; title: string }>;

export type OidcFailureCode = keyof typeof OIDC_FAILURES;

/** A sign-in that stopped: the governed core's Failure, with the reason as its `code` and extra HTML for the page. */
export class OidcFailure extends Failure {
  override readonly name = "OidcFailure";
  declare readonly code: OidcFailureCode;
  /** Extra HTML shown under the message (already escaped). */
  readonly more: SafeHtml | undefined;
  constructor(code: OidcFailureCode, message: string, more?: SafeHtml) {
    super(OIDC_FAILURES[code].kind, message, {}, code);
    this.more = more;
  }
}

/** The page for a failed sign-in, with a link to start again; the failure is logged (no secrets in it). */
export function oidcFailureResponse(failure: OidcFailure, restartHref: string): Response {
  logWarn("oidc sign-in failed", { code: failure.code, reason: failure.message });
  return errorPage(
    failure.status,
    OIDC_FAILURES[failure.code].title,
    failure.message,
    html`${failure.more ?? ""}<p><a href="${restartHref}">Start signing in again</a></p>`,
  );
}
