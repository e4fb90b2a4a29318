/**
 * Everything that can stop an OpenID Connect sign-in, as tagged values, and the one place that turns them
 * into pages. Messages are safe to show: they never contain the client secret, codes or tokens.
 */
import { errorPage, html, type SafeHtml } from "../web/html";
import { logWarn } from "../lib/log";

export type OidcFailureKind =
  /** The operator's settings are wrong or incomplete. */
  | "configuration"
  /** The provider could not be reached (network error, timeout). */
  | "provider-unreachable"
  /** The provider answered with something unusable (bad discovery document, malformed token response). */
  | "provider-invalid"
  /** The provider sent the user back with `error=` (e.g. the user cancelled). */
  | "provider-error"
  /** The browser came back without a valid, unexpired sign-in cookie (expired, other browser, replay). */
  | "flow-expired"
  /** The callback's `state` (or `iss`) does not belong to this browser's sign-in. */
  | "state-mismatch"
  /** The token endpoint refused the code. */
  | "token-refused"
  /** The ID token failed verification (signature, issuer, audience, nonce, expiry, algorithm). */
  | "id-token-invalid"
  /** The verified user maps to no organization served here. */
  | "no-organization"
  /** The verified user maps to several organizations. */
  | "several-organizations";

export class OidcFailure extends Error {
  override readonly name = "OidcFailure";
  readonly kind: OidcFailureKind;
  /** Extra HTML shown under the message (already escaped). */
  readonly more: SafeHtml | undefined;
  constructor(kind: OidcFailureKind, message: string, more?: SafeHtml) {
    super(message);
    this.kind = kind;
    this.more = more;
  }
}

function presentation(kind: OidcFailureKind): { status: number; title: string } {
  switch (kind) {
    case "configuration":
      return { status: 503, title: "OpenID Connect sign-in is not configured correctly" };
    case "provider-unreachable":
      return { status: 502, title: "The identity provider could not be reached" };
    case "provider-invalid":
      return { status: 502, title: "The identity provider gave an unusable answer" };
    case "provider-error":
      return { status: 400, title: "The identity provider did not sign you in" };
    case "flow-expired":
      return { status: 400, title: "This sign-in attempt has expired" };
    case "state-mismatch":
      return { status: 400, title: "This sign-in response does not belong to your browser" };
    case "token-refused":
      return { status: 502, title: "The identity provider refused the sign-in" };
    case "id-token-invalid":
      return { status: 401, title: "Sign-in refused: the identity provider's ID token is not valid" };
    case "no-organization":
      return { status: 403, title: "Your account is not part of an organization on this server" };
    case "several-organizations":
      return { status: 403, title: "Your account matches more than one organization" };
  }
}

/** The page for a failed sign-in, with a link to start again; the failure is logged (no secrets in it). */
export function oidcFailureResponse(failure: OidcFailure, restartHref: string): Response {
  logWarn("oidc sign-in failed", { kind: failure.kind, reason: failure.message });
  const { status, title } = presentation(failure.kind);
  return errorPage(
    status,
    title,
    failure.message,
    html`${failure.more ?? ""}<p><a href="${restartHref}">Start signing in again</a></p>`,
  );
}
