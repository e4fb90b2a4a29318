import type { Env } from "../env";
import { devSignInEnabled } from "../env";
import { anyOwnProvider } from "../directory/client";
import { devSignIn } from "./dev-signin";
import type { SignInMethod } from "./identity";
import { oidcSignIn } from "./oidc";
import { oidcEnabled } from "./oidc-config";
import { organizationSignIn } from "./org-oidc";

/**
 * The sign-in methods this deployment offers, in the order the sign-in page lists them: organizations' own
 * providers (when at least one organization has one), the platform provider, development sign-in.
 */
export async function signInMethods(env: Env): Promise<SignInMethod[]> {
  const methods: SignInMethod[] = [];
  if (await anyOwnProvider(env)) methods.push(organizationSignIn(env));
  if (oidcEnabled(env)) methods.push(oidcSignIn(env));
  if (devSignInEnabled(env)) methods.push(devSignIn);
  return methods;
}
