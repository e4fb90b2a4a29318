/**
 * What the /mcp front's steps share about one request (src/mcp/http.ts composes them in one declared order): the
 * request, who the OAuth resource server verified, and what the steps before learned. A step answers (a refusal, or
 * the lane's answer) or returns nothing to let the next step run.
 */
import type { OAuthResourceContext } from "@cloudflare/workers-oauth-provider";
import type { Principal } from "../../core/principal";
import type { Env } from "../../env";
import type { GrantProps } from "../../oauth/grant-props";
import type { ToleranceId } from "../compat/tolerances";

export interface FrontRequest {
  readonly request: Request;
  readonly env: Env;
  readonly ctx: ExecutionContext;
  /** The verified grant's principal (src/core/principal.ts). */
  readonly principal: Principal;
  /** The verified token, for the 403 step-up challenge. */
  readonly auth: OAuthResourceContext<GrantProps>["auth"];
  readonly correlationId: string;
  /** A POST's body as text and parsed (body.ts); undefined for GET and DELETE. */
  message?: { text: string; parsed: unknown };
  /** The headers the lanes get, once the compatibility step has applied its tolerances (compatibility.ts). */
  headers?: Headers;
  /** The real clients' deviations tolerated for this request (compat/), reported once it is answered. */
  readonly tolerated: ToleranceId[];
}

/** One named step of the front: an answer ends the request, undefined hands it to the next step. */
export type FrontStep = (front: FrontRequest) => Promise<Response | undefined>;
