/** An organization's display name from the directory (through the isolate cache), for answers and pages. */
import type { Env } from "../env";
import { resolveOrganization } from "./client";

export async function organizationName(
  env: Pick<Env, "DIRECTORY_VIEW">,
  organizationId: string,
): Promise<string | undefined> {
  return (await resolveOrganization(env, organizationId))?.record.settings.name;
}
