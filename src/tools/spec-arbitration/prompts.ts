/**
 * The spec-driven work prompt: read the contract first, build to it, validate real responses, and check
 * conformance before calling the task done. It names the project's current state (active contract, latest
 * verdict) so the model starts from facts, and the exact resources and tools to use.
 */
import { z } from "zod";
import type { CapabilityContext } from "../../mcp/context";
import { PROJECT_NAME_PATTERN, PROJECT_NAME_RULE } from "../../contracts/store/names";
import { snapshotTitle } from "../../contracts/store/records";
import { checkProjectAccess, requireProjectStatus } from "../../contracts/services/project-access";
import { contractLabel } from "../../contracts/services/conformance";
import { Failure } from "../../core/failure";
import { snapshotVerdictStatement } from "../../contracts/verdict-statement";
import { contractUri, latestVerdictUri } from "./uris";

const argsSchema = z.object({
  project: z
    .string()
    .regex(PROJECT_NAME_PATTERN, PROJECT_NAME_RULE)
    .describe("The project (API) the task is about, e.g. orders-api"),
  task: z.string().max(4000).optional().describe("What to build or change, in a sentence or two"),
});

export function registerSpecPrompts(ctx: CapabilityContext): void {
  ctx.registerPrompt({
    name: "spec_driven_task",
    title: "Spec-driven task",
    description:
      "Work on an API task with the project's contract as the source of truth: read the contract first, then check conformance before calling the task done.",
    argsSchema,
    requiredScopes: ["contracts.read"],
    async build(args, context) {
      let state: string;
      try {
        checkProjectAccess(context.principal, args.project);
        const status = await requireProjectStatus(context, args.project);
        const contract = status.activeContract;
        const snapshot = status.latestSnapshot;
        const statement = snapshot ? snapshotVerdictStatement(snapshot, contract?.version ?? null, args.project) : null;
        state = [
          contract
            ? `The active contract is ${contractLabel(contract)} (OpenAPI ${contract.openapiVersion}, ${contract.operationCount} operations).`
            : "The project has no active contract yet: ask for one to be uploaded before writing code.",
          snapshot && statement
            ? `The latest snapshot from CI is ${snapshotTitle(snapshot)}: ${statement.outcome}.${statement.staleNote ? ` ${statement.staleNote}` : ""}`
            : "CI has not uploaded a snapshot yet.",
          status.lastBuildFailed && status.latestFailedBuild
            ? `The last build failed at ${status.latestFailedBuild.commit}: fix the build first.`
            : "",
        ]
          .filter(Boolean)
          .join(" ");
      } catch (error) {
        // The project's state cannot be read (unknown project, no access): the prompt's arguments are what is wrong.
        if (error instanceof Failure) throw new Failure("invalid_input", error.message, error.details, error.code);
        throw error;
      }
      const project = args.project;
      const text = [
        `You are working spec-first on the API project "${project}". The contract (OpenAPI) is the source of truth; the implementation must match it.`,
        state,
        "",
        args.task ? `Task: ${args.task}` : "Task: ask what to build if it is not clear yet.",
        "",
        "Work like this:",
        `1. Call spec_project_select with project "${project}", then read the contract (resource spec://active/contract, or ${contractUri(project, "active")}) before writing code. Use its paths, parameters, status codes and schemas exactly; do not invent fields.`,
        "2. Implement the change. When you can run the service, check real responses with validate_response_payload (method, path, status, payload) and fix every error it reports.",
        "3. Let CI build and upload the implementation's generated OpenAPI document (a snapshot).",
        `4. Before you call the task done, call check_api_conformance for "${project}". approved: false means the implementation breaks the contract: fix every error-severity violation (its location names the operation and the place inside it) and check again. isError means the check could not run: do what its message says (for example fix a failed build or wait for CI's snapshot).`,
        `5. Only report the task as done when check_api_conformance returns approved: true. You can subscribe to ${latestVerdictUri(project)} to hear when CI uploads a new verdict.`,
      ].join("\n");
      return [{ role: "user", text }];
    },
  });
}
