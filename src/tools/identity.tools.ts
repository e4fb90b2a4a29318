import { z } from "zod";
import { organizationName } from "../directory/names";
import type { CapabilityContext } from "../mcp/context";
import { rateLimiterFor } from "../ratelimit/limiter";

const organizationField = z.object({
  id: z.string().describe("Organization id (as the deployment's directory names it)"),
  name: z.string().describe("Organization display name"),
});

const quotaField = z.object({
  tool: z.string().describe("Tool name"),
  limit: z.number().describe("Calls this client may make per window"),
  windowSeconds: z.number().describe("Window length in seconds"),
  remaining: z
    .number()
    .nullable()
    .describe("Calls left in the current window; null when the limiter cannot be read right now"),
  resetsInSeconds: z
    .number()
    .nullable()
    .describe(
      "Seconds until the current window closes and the full quota is back; 0 when no window is open; null when unknown",
    ),
});

export function registerIdentityTools(ctx: CapabilityContext): void {
  ctx.registerTool({
    name: "whoami",
    title: "Who am I",
    description:
      "Shows who this connection acts for: the organization, the signed-in user, the OAuth client, the user's role, the scopes granted to this client and the remaining rate-limit quota per tool. Call it to understand why a tool was refused.",
    inputSchema: z.object({}).strict(),
    outputSchema: z.object({
      organization: organizationField.describe("The organization whose data this connection can reach"),
      userId: z.string().describe("The signed-in user"),
      clientId: z.string().describe("The OAuth client (or CI key) this token was issued to"),
      role: z.string().describe("The user's role in the organization"),
      scopes: z.array(z.string()).describe("Scopes granted to this client"),
      quotas: z.array(quotaField).describe("Remaining rate-limit quota of this client, per tool (this call included)"),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    // Needs no scope: it shows only the caller's own grant, which is how a client finds out what it lacks.
    requiredScopes: [],
    // The pipeline's rate-limit decision reports these (src/mcp/deps.ts), so the quotas cost no second limiter call.
    reportsQuotaOf: () => ctx.toolNames(),
    async handler(_input, { principal, env, quotas }) {
      const name = await organizationName(env, principal.organizationId);
      // Without a report (a pipeline whose limiter is a stand-in, as in some tests), the limiter is asked directly.
      const usage = quotas ?? (await rateLimiterFor(env).usage(principal, ctx.toolNames()));
      return {
        structuredContent: {
          organization: { id: principal.organizationId, name: name ?? principal.organizationId },
          userId: principal.userId,
          clientId: principal.clientId,
          role: principal.role,
          scopes: [...principal.scopes],
          quotas: usage.map(({ target, ...rest }) => ({ tool: target, ...rest })),
        },
      };
    },
  });
}
