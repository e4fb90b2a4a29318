/**
 * Spec arbitration tools for finding one's way: list projects, contract versions and snapshots, select the
 * session's project (other spec tools and spec://active/contract default to it), and read a contract document.
 */
import { z } from "zod";
import { cutPage, oneMore } from "../../lib/page";
import { snapshotVerdictStatement } from "../../contracts/verdict-statement";
import {
  checkProjectAccess,
  rememberSelectedProject,
  requireProjectStatus,
  resolveProjectName,
  selectedProject,
} from "../../contracts/services/project-access";
import { listProjects } from "../../contracts/services/projects";
import { listContracts } from "../../contracts/services/contract-versions";
import { listSnapshots } from "../../contracts/services/snapshots";
import { documentText } from "../../contracts/services/stored-content";
import { contractLabel, resolveContract } from "../../contracts/services/conformance";
import { documentMimeType } from "./resources";
import { ACTIVE_CONTRACT_URI, contractUri, latestVerdictUri } from "./uris";
import { followSelectedProject } from "./subscriptions";
import { snapshotTitle } from "../../contracts/store/records";
import type { CapabilityContext } from "../../mcp/context";
import { ToolFailure } from "../../mcp/context";
import {
  contractRecord,
  contractVersion,
  optionalProject,
  pageBefore,
  pageLimit,
  projectName,
  projectRecord,
  READ_SCOPES,
  readOnly,
  snapshotRecord,
} from "./fields";

/** A contract document returned by spec_contract_get (larger ones: REST download). */
export const MAX_TOOL_DOCUMENT_BYTES = 1024 * 1024;

/** The most projects one spec_projects_list answer names. */
const PROJECTS_PER_PAGE = 100;

export function registerSpecProjectTools(ctx: CapabilityContext): void {
  ctx.registerTool({
    name: "spec_projects_list",
    title: "List API projects",
    description:
      "Lists your organization's API projects with contracts (spec arbitration), by name: active contract version, number of contracts and snapshots, latest snapshot, and which one is your default project. Pages of up to 100; pass the answer's nextAfter as after for the next page.",
    inputSchema: z
      .object({
        limit: z
          .number()
          .int()
          .min(1)
          .max(PROJECTS_PER_PAGE)
          .default(PROJECTS_PER_PAGE)
          .describe(`How many projects to return, by name (1-${PROJECTS_PER_PAGE}, default ${PROJECTS_PER_PAGE})`),
        after: projectName.optional().describe("Cursor: return the projects after this name (the previous nextAfter)"),
      })
      .strict(),
    outputSchema: z.object({
      projects: z.array(projectRecord).describe("The projects, by name"),
      nextAfter: z.string().nullable().describe("Cursor for the next page (pass as after), null at the end"),
      selectedProject: z.string().nullable().describe("Your default project (spec_project_select), if any"),
    }),
    annotations: readOnly,
    requiredScopes: READ_SCOPES,
    async handler(input, context) {
      const [listed, selected] = await Promise.all([
        listProjects(context, { limit: oneMore(input.limit), after: input.after ?? null }),
        selectedProject(context),
      ]);
      const { items: projects, nextAfter } = cutPage(listed, input.limit, (project) => project.name);
      const lines = projects.map(
        (p) =>
          `- ${p.name}: active contract ${p.activeContractVersion === null ? "none" : `v${p.activeContractVersion}`}, ${p.snapshotCount} snapshot(s)${p.name === selected ? " (selected)" : ""}`,
      );
      if (nextAfter) lines.push(`More projects follow: call spec_projects_list with after "${nextAfter}".`);
      const text = lines.length
        ? lines.join("\n")
        : input.after
          ? `There are no projects after "${input.after}".`
          : "Your organization has no API projects yet. A project is created by its first contract upload (POST /api/v1/projects/<project>/contracts).";
      return { structuredContent: { projects, nextAfter, selectedProject: selected ?? null }, text };
    },
  });

  ctx.registerTool({
    name: "spec_project_select",
    title: "Select your default API project",
    description:
      "Sets your default API project (kept per user, so it holds across sessions and for stateless 2026-07-28 clients). check_api_conformance, validate_response_payload and the other spec tools then default to it, and the resource spec://active/contract shows its active contract. Call it at the start of spec-driven work.",
    inputSchema: z.object({ project: projectName }).strict(),
    outputSchema: z.object({
      project: z.string().describe("The selected project"),
      activeContract: z
        .object({ version: z.number(), label: z.string().nullable() })
        .nullable()
        .describe("The project's active contract"),
      latestSnapshot: z
        .object({
          id: z.number(),
          number: z.number().describe("Its number in the project (1 = the first)"),
          commit: z.string(),
          approved: z.boolean().nullable().describe("Its verdict against contractVersion (null: not checked)"),
          contractVersion: z.number().describe("The contract version that verdict was judged against"),
          judgedAgainstActive: z
            .boolean()
            .describe(
              "False when another contract version is active now: approved then says nothing about the active contract; call check_api_conformance",
            ),
        })
        .nullable()
        .describe("The newest snapshot from CI"),
      lastBuildFailed: z.boolean().describe("True when a failed build was recorded after the latest snapshot"),
      resources: z
        .object({ activeContract: z.string(), latestVerdict: z.string() })
        .describe("Resources to read (and subscribe to)"),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    requiredScopes: READ_SCOPES,
    async handler({ project }, context) {
      checkProjectAccess(context.principal, project);
      const status = await requireProjectStatus(context, project);
      await rememberSelectedProject(context, project);
      const notFollowed = await followSelectedProject(context, project);
      const active = status.activeContract;
      const latest = status.latestSnapshot;
      const statement = latest ? snapshotVerdictStatement(latest, active?.version ?? null, project) : null;
      const structuredContent = {
        project,
        activeContract: active ? { version: active.version, label: active.label } : null,
        latestSnapshot:
          latest && statement
            ? {
                id: latest.id,
                number: latest.number,
                commit: latest.commit,
                approved: latest.approved,
                contractVersion: latest.contractVersion,
                judgedAgainstActive: statement.judgedAgainstActive,
              }
            : null,
        lastBuildFailed: status.lastBuildFailed,
        resources: { activeContract: ACTIVE_CONTRACT_URI, latestVerdict: latestVerdictUri(project) },
      };
      const text =
        `Selected project "${project}". Active contract: ${active ? contractLabel(active) : "none"}. ` +
        `Latest snapshot: ${latest && statement ? `${snapshotTitle(latest)}, ${statement.outcome}.${statement.staleNote ? ` ${statement.staleNote}` : ""}` : "none yet."} ` +
        `Read ${ACTIVE_CONTRACT_URI} (or call spec_contract_get) before writing code; call check_api_conformance before calling a task done.` +
        (notFollowed ? ` ${notFollowed}` : "");
      return { structuredContent, text };
    },
  });

  ctx.registerTool({
    name: "spec_contracts_list",
    title: "List contract versions",
    description:
      "Lists the contract versions of an API project, newest first, with which one is active and its label (e.g. a Spec Kit feature folder).",
    inputSchema: z.object({ project: optionalProject, limit: pageLimit, before: pageBefore }).strict(),
    outputSchema: z.object({
      project: z.string().describe("The project"),
      contracts: z.array(contractRecord).describe("Contract versions, newest first"),
      nextBefore: z.number().nullable().describe("Cursor for older entries (pass as before), null at the end"),
    }),
    annotations: readOnly,
    requiredScopes: READ_SCOPES,
    async handler(input, context) {
      const project = await resolveProjectName(context, input.project);
      const page = await listContracts(context, project, { limit: input.limit, before: input.before ?? null });
      return { structuredContent: { project, contracts: page.items, nextBefore: page.nextBefore } };
    },
  });

  ctx.registerTool({
    name: "spec_snapshots_list",
    title: "List implementation snapshots",
    description:
      "Lists the implementation snapshots CI uploaded for an API project, newest first: commit, branch, CI run, the contract version each was checked against and whether it was approved.",
    inputSchema: z.object({ project: optionalProject, limit: pageLimit, before: pageBefore }).strict(),
    outputSchema: z.object({
      project: z.string().describe("The project"),
      snapshots: z.array(snapshotRecord).describe("Snapshots, newest first"),
      nextBefore: z.number().nullable().describe("Cursor for older entries (pass as before), null at the end"),
      lastBuildFailed: z.boolean().describe("True when a failed build was recorded after the latest snapshot"),
    }),
    annotations: readOnly,
    requiredScopes: READ_SCOPES,
    async handler(input, context) {
      const project = await resolveProjectName(context, input.project);
      const [status, page] = await Promise.all([
        requireProjectStatus(context, project),
        listSnapshots(context, project, { limit: input.limit, before: input.before ?? null }),
      ]);
      return {
        structuredContent: {
          project,
          snapshots: page.items,
          nextBefore: page.nextBefore,
          lastBuildFailed: status.lastBuildFailed,
        },
      };
    },
  });

  ctx.registerTool({
    name: "spec_contract_get",
    title: "Read a contract",
    description:
      "Returns a contract's OpenAPI document (the active one unless a version is given) with its record. Read the contract before writing code: it is the source of truth for paths, parameters, status codes and schemas. Same content as the resource spec://active/contract.",
    inputSchema: z
      .object({
        project: optionalProject,
        version: contractVersion.optional().describe("Contract version; default: the active contract"),
      })
      .strict(),
    outputSchema: z.object({
      contract: contractRecord.describe("The contract version"),
      mimeType: z.string().describe("application/json or application/yaml"),
      document: z.string().describe("The OpenAPI document as uploaded"),
      resource: z.string().describe("The resource URI of this contract version"),
    }),
    annotations: readOnly,
    requiredScopes: READ_SCOPES,
    async handler(input, context) {
      const project = await resolveProjectName(context, input.project);
      const status = await requireProjectStatus(context, project);
      const contract = await resolveContract(context, project, input.version, status.activeContract);
      if (contract.size > MAX_TOOL_DOCUMENT_BYTES) {
        throw new ToolFailure(
          "invalid-input",
          `Contract ${contractLabel(contract)} of "${project}" is ${contract.size} bytes, more than the ${MAX_TOOL_DOCUMENT_BYTES} bytes this tool returns: download it with GET /api/v1/projects/${project}/contracts/${contract.version}/document, or validate payloads against it with validate_response_payload.`,
        );
      }
      const document = await documentText(context, project, contract.contentHash);
      if (document === null)
        throw new ToolFailure(
          "error",
          `The stored document of contract ${contractLabel(contract)} of "${project}" cannot be read: upload the contract again.`,
          { cannotVerify: "document_unreadable" },
        );
      return {
        structuredContent: {
          contract,
          mimeType: documentMimeType(contract.format),
          document,
          resource: contractUri(project, contract.version),
        },
        text: `Contract ${contractLabel(contract)} of "${project}" (OpenAPI ${contract.openapiVersion}, ${contract.operationCount} operations, ${contract.active ? "active" : "not active"}):\n\n${document}`,
      };
    },
  });
}
