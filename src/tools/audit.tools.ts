import { z } from "zod";
import { AuditQueryError, auditQueryInput, listAuditEvents } from "../audit/query";
import { AUDIT_KINDS, AUDIT_OUTCOMES } from "../audit/record";
import { ToolFailure, type CapabilityContext } from "../mcp/context";

const auditEvent = z.object({
  correlationId: z.string().describe("Correlation id of the call or event (error messages quote it)"),
  time: z.string().describe("When it started, ISO 8601 UTC"),
  organizationId: z.string().describe("The organization (always yours)"),
  userId: z.string().describe("The user the client acted for"),
  clientId: z.string().describe("The OAuth client or CI key (`ci-key:<id>`)"),
  kind: z
    .enum(AUDIT_KINDS)
    .describe("tool call, REST call (route), OAuth event, resource read or subscription change, or prompt get"),
  target: z.string().describe("Tool name, `METHOD /route`, or OAuth event name"),
  argumentsDigest: z
    .string()
    .describe("sha256 of the canonical JSON of the arguments (never the arguments themselves), or empty"),
  durationMs: z.number().describe("How long it took, in milliseconds"),
  outcome: z.enum(AUDIT_OUTCOMES).describe("ok, or why it did not succeed"),
  reason: z.string().describe("Short explanation (never a token, secret or payload)"),
});

export function registerAuditTools(ctx: CapabilityContext): void {
  ctx.registerTool({
    name: "audit_events_list",
    title: "List audit events",
    description:
      "Lists your organization's audit trail, newest first: every tool call, REST call and OAuth event (grant, revoke, CI key created or revoked) with who, which client, what, when, how long and the outcome. Filter by time range, user, client, tool/route/event, kind, outcome or correlation id; page with nextCursor. Arguments are shown only as digests.",
    inputSchema: auditQueryInput,
    outputSchema: z.object({
      organizationId: z.string().describe("The organization whose trail this is (from your token)"),
      events: z.array(auditEvent).describe("Matching events, newest first"),
      nextCursor: z
        .string()
        .nullable()
        .describe("Pass as cursor (with the same filters) for the next page; null on the last page"),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    requiredScopes: ["audit.read"],
    async handler(input, { env, principal }) {
      try {
        const page = await listAuditEvents(env, principal.organizationId, input);
        return {
          structuredContent: page,
          text: `${page.events.length} audit event(s) for ${page.organizationId}${page.nextCursor ? "; more available (nextCursor)" : ""}.\n${JSON.stringify(page, null, 2)}`,
        };
      } catch (error) {
        // Only the query's own refusals are mapped here; anything else goes to the pipeline.
        if (error instanceof AuditQueryError) throw new ToolFailure(error.outcome, error.message);
        throw error;
      }
    },
  });
}
