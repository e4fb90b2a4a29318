import type { Env } from "../env";
import { devSignInEnabled } from "../env";
import { devSignIn } from "./dev-signin";
import type { SignInMethod } from "./identity";
import { oidcSignIn } from "./oidc";
import { oidcEnabled } from "./oidc-config";

/** The sign-in methods this deployment offers, in the order the sign-in page lists them. */
export function signInMethods(env: Env): SignInMethod[] {
  const methods: SignInMethod[] = [];
  if (oidcEnabled(env)) methods.push(oidcSignIn(env));
  if (devSignInEnabled(env)) methods.push(devSignIn);
  return methods;
}
