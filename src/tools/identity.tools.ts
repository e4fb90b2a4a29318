import { z } from "zod";
import { getPolicy } from "../policy/load";
import type { CapabilityContext } from "../mcp/context";

const organizationField = z.object({
  id: z.string().describe("Organization id, as in policies/organizations.json"),
  name: z.string().describe("Organization display name"),
});

export function registerIdentityTools(ctx: CapabilityContext): void {
  ctx.registerTool({
    name: "whoami",
    title: "Who am I",
    description:
      "Shows who this connection acts for: the organization, the signed-in user, the OAuth client, the user's role and the scopes granted to this client. Call it to understand why a tool was refused.",
    inputSchema: z.object({}).strict(),
    outputSchema: z.object({
      organization: organizationField.describe("The organization whose data this connection can reach"),
      userId: z.string().describe("The signed-in user"),
      clientId: z.string().describe("The OAuth client (or CI key) this token was issued to"),
      role: z.string().describe("The user's role in the organization"),
      scopes: z.array(z.string()).describe("Scopes granted to this client"),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    // Needs no scope: it shows only the caller's own grant, which is how a client finds out what it lacks.
    requiredScopes: [],
    async handler(_input, { principal }) {
      const org = getPolicy().organizations[principal.organizationId];
      return {
        structuredContent: {
          organization: { id: principal.organizationId, name: org?.name ?? principal.organizationId },
          userId: principal.userId,
          clientId: principal.clientId,
          role: principal.role,
          scopes: [...principal.scopes],
        },
      };
    },
  });
}
