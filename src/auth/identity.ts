import type { RequestingApp } from "./requesting-app";

/** A signed-in member of an organization, whichever sign-in method established it. */
export interface Identity {
  /** Stable id within the organization (dev user key, or the OIDC `sub`). */
  subject: string;
  name: string;
  /**
   * The e-mail address, only when the provider does not say it is unverified: it is what the member list and
   * invitations match, so an address a person could type at their provider without proving it must not reach them.
   */
  email?: string;
  /** The provider sent an e-mail address it marks unverified (left out of `email`), for the refusal's wording. */
  emailUnverified?: true;
  organizationId: string;
  role: string;
  method: "dev" | "oidc";
}

/** The outcome of completing a sign-in: the identity and where to go next, or a page to show. */
export type SignInCompletion =
  /** `cookies`: extra Set-Cookie values (e.g. clearing a method's own short-lived cookie). */
  { identity: Identity; returnTo: string; cookies?: string[] } | { response: Response };

/**
 * One way to sign in. Both methods (development users and OpenID Connect) implement it and the routes in
 * src/auth/routes.ts dispatch to them, so the authorize flow never depends on which one was used.
 */
export interface SignInMethod {
  /** "org": organizations' own providers (src/auth/org-oidc.ts); their identities have method "oidc". */
  readonly id: Identity["method"] | "org";
  readonly label: string;
  /** Starts sign-in: a form to show (naming `app`, the application that asked, when known) or a redirect to the identity provider. */
  begin(request: Request, returnTo: string, app?: RequestingApp): Promise<Response>;
  /** Finishes sign-in from the form post or the provider's callback. */
  complete(request: Request): Promise<SignInCompletion>;
}

/** Only same-site paths of the pages that need sign-in may be returned to (no open redirect). */
export function safeReturnTo(value: string | null | undefined): string {
  if (!value?.startsWith("/") || value.startsWith("//") || value.includes("\\")) return "/";
  if (value === "/invitations/accepted") return value;
  if (!/^\/(authorize|admin)(\/|\?|$)/.test(value)) return "/";
  return value;
}
