/**
 * The props of an OAuth grant: what the authorization server stores with it (encrypted) and what every request
 * the resource servers admit carries. Its own module, so CI-key validation and the servers can both name it.
 */
/** What completeAuthorization stores with a grant (encrypted) and every request sees as ctx.props. */
export interface GrantProps {
  organizationId: string;
  userId: string;
  role: string;
  name: string;
  /** Set for CI keys only: the projects the key may touch (["*"] = all of the organization's). */
  projects?: string[];
}
