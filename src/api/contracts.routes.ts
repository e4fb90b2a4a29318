/**
 * The CI API for spec arbitration (docs/ci.md "Spec arbitration: CI API and CLI"). Documents are sent as the raw
 * request body (JSON or YAML); metadata travels in the query string, so a 13 MB document is never wrapped in
 * or parsed out of another JSON value. The organization always comes from the token or CI key.
 *
 *   GET  /api/v1/projects                                         contracts.read
 *   GET  /api/v1/projects/:project                                contracts.read   status: active contract, latest snapshot, last failed build
 *   POST /api/v1/projects/:project/contracts?label=&allowEmpty=   contracts.write  new version, made active; constitution verdict
 *   GET  /api/v1/projects/:project/contracts                      contracts.read
 *   GET  /api/v1/projects/:project/contracts/active               contracts.read
 *   GET  /api/v1/projects/:project/contracts/:version             contracts.read
 *   GET  /api/v1/projects/:project/contracts/:version/document    contracts.read   the stored bytes
 *   POST /api/v1/projects/:project/contracts/:version/activate    contracts.write
 *   POST /api/v1/projects/:project/snapshots?commit=&branch=&runUrl=  snapshots.write  verdict in the answer
 *   GET  /api/v1/projects/:project/snapshots                      contracts.read
 *   GET  /api/v1/projects/:project/snapshots/latest               contracts.read
 *   GET  /api/v1/projects/:project/snapshots/:id                  contracts.read
 *   GET  /api/v1/projects/:project/snapshots/:id/document         contracts.read
 *   POST /api/v1/projects/:project/builds                         snapshots.write  { commit, branch?, runUrl?, log? }
 *   GET  /api/v1/projects/:project/builds                         contracts.read
 *   GET  /api/v1/projects/:project/verdicts                       contracts.read
 *   GET  /api/v1/projects/:project/verdicts/:id                   contracts.read
 */
import type { Verdict } from "../engine";
import { breakingStatement } from "../contracts/breaking-statement";
import { z } from "zod";
import type { ContractChangeListener } from "../contracts/store/events";
import { snapshotTitle } from "../contracts/store/records";
import { MAX_BUILD_BODY_BYTES } from "../contracts/store/limits";
import { breakingChangesPolicy, type BreakingChangesPolicy } from "../engine";
import { conformanceConfigFor } from "../contracts/services/organization-config";
import { renderVerdictMarkdown } from "../engine";
import { refuseWhenFull, startSnapshotUpload, uploadContract, uploadSnapshot } from "../contracts/services/uploads";
import { serviceFailure, unknownProjectFailure } from "../contracts/services/failure";
import { listProjects, refuseProbableTypo } from "../contracts/services/projects";
import { requireProjectStatus } from "../contracts/services/project-access";
import {
  activateContract,
  activeContract,
  breakingCount,
  changeSummary,
  contractWithVerdict,
  listContracts,
  requireContract,
} from "../contracts/services/contract-versions";
import { latestSnapshotId, listSnapshots, requireSnapshot, snapshotWithVerdict } from "../contracts/services/snapshots";
import { listVerdicts, verdictWithSubject } from "../contracts/services/verdicts";
import { listBuilds, recordBuild } from "../contracts/services/builds";
import { documentStream } from "../contracts/services/stored-content";
import { Failure } from "../core/failure";
import { cutPage, oneMore } from "../lib/page";
import { logWarn } from "../lib/log";
import {
  afterQuery,
  invalidQuery,
  json,
  pageQuery,
  positiveInt,
  projectRoute,
  queryObject,
  readDocument,
  readJsonBody,
  unpagedLimit,
} from "./contracts-http";
import type { ApiRequest, ApiRoute } from "./router";
import { bytesForLocations, reportFacts, requestedFormats, verdictAnswer } from "./verdict-answer";

const READ = ["contracts.read"] as const;
const noControl = /^[^\u0000-\u001f\u007f]*$/;

export const commitText = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\s\u0000-\u001f\u007f]+$/, "no spaces or control characters")
  .describe("The commit the build ran on");
export const branchText = z
  .string()
  .min(1)
  .max(255)
  .regex(noControl, "no control characters")
  .describe("The branch the build ran on");
export const runUrlText = z
  .string()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === "https:" || url.protocol === "http:";
    } catch {
      return false;
    }
  }, "an http(s) URL such as https://github.com/acme/orders/actions/runs/1")
  .describe("Link to the CI run");
const labelText = z
  .string()
  .min(1)
  .max(100)
  .regex(noControl, "no control characters")
  .describe("Free label, e.g. the Spec Kit feature folder 003-orders");
const allowEmptyFlag = z
  .enum(["true", "false"])
  .describe("true: a contract without operations is intended (webhooks or components only)");

const createFlag = z
  .enum(["true", "false"])
  .describe("true: create the project even when its name is one or two keystrokes from an existing project's");

const SNAPSHOT_PLACEHOLDERS = { commit: "<sha>", branch: "<name>", runUrl: "<url of the CI run>" };
const snapshotQuery = z.object({ commit: commitText, branch: branchText.optional(), runUrl: runUrlText.optional() });
const buildBody = z
  .object({
    commit: commitText,
    branch: branchText.optional(),
    runUrl: runUrlText.optional(),
    log: z
      .string()
      .max(1024 * 1024)
      .optional()
      .describe("The build log or its end"),
  })
  .strict();

/**
 * How long after its answer a change is announced. Under `wrangler dev` an answer is held back while Durable Object
 * calls that its request started are in flight, so announcements that began at once kept CI waiting for them all.
 */
const ANNOUNCE_AFTER_MS = 100;

/**
 * Tells whoever listens (MCP subscribers) about a change after the answer: the change is stored either way, and CI's
 * answer does not wait for every subscribed session to be told.
 */
function announceAfterAnswer(
  input: ApiRequest,
  what: string,
  announce: (env: ApiRequest["env"], organizationId: string) => Promise<void>,
): void {
  const later = new Promise((done) => setTimeout(done, ANNOUNCE_AFTER_MS));
  input.ctx.waitUntil(
    later
      .then(() => announce(input.env, input.principal.organizationId))
      .catch((error: unknown) => logWarn(`${what} hook failed`, { correlationId: input.correlationId, error })),
  );
}

function announceActiveContract(
  changes: ContractChangeListener,
  input: ApiRequest & { project: string },
  version: number,
): void {
  announceAfterAnswer(input, "active contract", (env, organizationId) =>
    changes.activeContractChanged(env, organizationId, input.project, version),
  );
}

async function documentResponse(
  input: ApiRequest & { project: string },
  contentHash: string,
  format: string,
  name: string,
): Promise<Response> {
  const content = await documentStream(input, input.project, contentHash);
  if (!content)
    throw new Failure("conflict", "The stored document cannot be read; upload it again.", {}, "missing_content");
  return new Response(content.body, {
    headers: {
      "Content-Type": format === "yaml" ? "application/yaml; charset=utf-8" : "application/json; charset=utf-8",
      "Content-Length": String(content.size),
      "Content-Disposition": `attachment; filename="${name}.${format === "yaml" ? "yaml" : "json"}"`,
      "Cache-Control": "no-store",
      ETag: `"${contentHash}"`,
    },
  });
}

/** The contract routes; `changes` hears of each stored verdict and each new active contract (MCP announces them). */
export function contractRoutes(changes: ContractChangeListener): ApiRoute[] {
  return [
    {
      method: "GET",
      path: "/api/v1/projects",
      requiredScopes: READ,
      async handle(input) {
        const url = new URL(input.request.url);
        const { limit } = unpagedLimit(url);
        const after = afterQuery(url);
        const listed = await listProjects(input, { limit: oneMore(limit), after });
        const { items: projects, nextAfter } = cutPage(listed, limit, (project) => project.name);
        return json({ projects, nextAfter });
      },
    },
    projectRoute("GET", "", READ, async (input) => json(await requireProjectStatus(input, input.project))),

    // ---- contracts ------------------------------------------------------------------------------------------
    projectRoute("POST", "/contracts", ["contracts.write"], async (input) => {
      const query = z
        .object({ label: labelText.optional(), allowEmpty: allowEmptyFlag.optional(), create: createFlag.optional() })
        .safeParse(queryObject(input.url, ["label", "allowEmpty", "create"]));
      if (!query.success) throw invalidQuery(query.error);
      if (query.data.create !== "true") await refuseProbableTypo(input, input.project);
      const formats = requestedFormats(input.url);
      const body = await readDocument(input.request);
      const who = { organizationId: input.principal.organizationId, uploadedBy: input.principal.userId };
      const located = bytesForLocations(formats.choice, body.holder.bytes);
      const result = await uploadContract(input.env, who, input.project, query.data.label ?? null, body.holder.bytes!, {
        allowEmpty: query.data.allowEmpty === "true",
      });
      if (!result.ok) throw serviceFailure(result, input.project);
      if (result.contract.active) announceActiveContract(changes, input, result.contract.version);
      const change = result.change;
      if (change) input.note(`${breakingCount(change.verdict)} breaking changes vs v${change.comparedWithVersion}`);
      const report = {
        subject: "contract" as const,
        project: input.project,
        contractVersion: contractName(result.contract),
        title: `contract ${contractName(result.contract)}`,
        verdict: result.verdict,
        ...reportFacts(input.url, input.project, result.verdictRecord.id, input.env.PUBLIC_URL, located),
      };
      const changelog = change
        ? renderVerdictMarkdown(change.verdict, {
            project: input.project,
            subject: "contract-change",
            title: `v${change.comparedWithVersion} → ${contractName(result.contract)}`,
          })
        : "";
      return verdictAnswer(
        formats.choice,
        {
          project: input.project,
          projectCreated: result.projectCreated,
          contract: result.contract,
          activated: result.contract.active,
          ...activationStatement(
            breakingChangesPolicy(
              await conformanceConfigFor(input.env, input.principal.organizationId),
              input.principal.organizationId,
            ),
            input,
            result.contract,
            change,
          ),
          contentReused: result.contentReused,
          verdictId: result.verdictRecord.id,
          verdict: result.verdict,
          breakingChanges: change ? changeSummary(change.comparedWithVersion, change.verdict) : null,
          markdown:
            renderVerdictMarkdown(result.verdict, report) + (changelog ? `\n${changelog.replace(/^## /, "### ")}` : ""),
        },
        report,
        201,
      );
    }),
    projectRoute("GET", "/contracts", READ, async (input) => {
      const { items, nextBefore } = await listContracts(input, input.project, pageQuery(input.url));
      return json({ contracts: items, nextBefore });
    }),
    projectRoute("GET", "/contracts/active", READ, async (input) =>
      json({ contract: await activeContract(input, input.project) }),
    ),
    projectRoute("GET", "/contracts/:version", READ, async (input) => {
      const version = positiveInt(input.params.version, "version");
      return json(await contractWithVerdict(input, input.project, version.value));
    }),
    projectRoute("GET", "/contracts/:version/document", READ, async (input) => {
      const version = positiveInt(input.params.version, "version");
      const contract = await requireContract(input, input.project, version.value);
      return documentResponse(
        input,
        contract.contentHash,
        contract.format,
        `${input.project}-contract-v${contract.version}`,
      );
    }),
    projectRoute("POST", "/contracts/:version/activate", ["contracts.write"], async (input) => {
      const version = positiveInt(input.params.version, "version");
      const query = z
        .object({ allowBreaking: z.enum(["true", "false"]).optional() })
        .safeParse(queryObject(input.url, ["allowBreaking"]));
      if (!query.success) throw invalidQuery(query.error);
      const contract = await activateContract(input, input.project, version.value, {
        allowBreaking: query.data.allowBreaking === "true",
        note: input.note,
      });
      announceActiveContract(changes, input, contract.version);
      return json({ contract });
    }),

    // ---- snapshots ------------------------------------------------------------------------------------------
    projectRoute("POST", "/snapshots", ["snapshots.write"], async (input) => {
      const query = snapshotQuery.safeParse(queryObject(input.url, ["commit", "branch", "runUrl"]));
      if (!query.success) throw invalidQuery(query.error, SNAPSHOT_PLACEHOLDERS);
      const formats = requestedFormats(input.url);
      // Refuse early, before reading a large body, when there is nothing to check against.
      // The same answer then feeds the upload: the active version and where to read it.
      const start = await startSnapshotUpload(input.env, input.principal.organizationId, input.project);
      if (!start.context.active) throw unknownProjectFailure(input.project);
      // A full store refuses before the body is read: CI does not send 13 MB to hear "no room".
      const declared = Number(input.request.headers.get("content-length") ?? 0);
      const declaredBytes = Number.isSafeInteger(declared) && declared > 0 ? declared : 0;
      await refuseWhenFull(input.env, input.principal.organizationId, input.project, start, declaredBytes);
      const body = await readDocument(input.request);
      const who = { organizationId: input.principal.organizationId, uploadedBy: input.principal.userId };
      const meta = { commit: query.data.commit, branch: query.data.branch ?? null, runUrl: query.data.runUrl ?? null };
      const located = bytesForLocations(formats.choice, body.holder.bytes);
      const result = await uploadSnapshot(input.env, who, input.project, meta, body.holder, start);
      if (!result.ok) throw serviceFailure(result, input.project);
      announceAfterAnswer(input, "verdict", (env, organizationId) =>
        changes.verdictStored(env, organizationId, input.project, result.snapshot.id),
      );
      const report = {
        subject: "snapshot" as const,
        project: input.project,
        contractVersion: contractName(result.contract),
        title: snapshotTitle(result.snapshot),
        verdict: result.verdict,
        ...reportFacts(input.url, input.project, result.verdictRecord.id, input.env.PUBLIC_URL, located),
      };
      return verdictAnswer(
        formats.choice,
        {
          project: input.project,
          snapshot: result.snapshot,
          contract: { version: result.contract.version, label: result.contract.label },
          contentReused: result.contentReused,
          verdictId: result.verdictRecord.id,
          verdict: result.verdict,
          markdown: renderVerdictMarkdown(result.verdict, report),
        },
        report,
        201,
      );
    }),
    projectRoute("GET", "/snapshots", READ, async (input) => {
      const { items, nextBefore } = await listSnapshots(input, input.project, pageQuery(input.url));
      return json({ snapshots: items, nextBefore });
    }),
    projectRoute("GET", "/snapshots/latest", READ, async (input) =>
      snapshotAnswer(input, await latestSnapshotId(input, input.project)),
    ),
    projectRoute("GET", "/snapshots/:id", READ, async (input) =>
      snapshotAnswer(input, positiveInt(input.params.id, "snapshot id").value),
    ),
    projectRoute("GET", "/snapshots/:id/document", READ, async (input) => {
      const id = positiveInt(input.params.id, "snapshot id");
      const snapshot = await requireSnapshot(input, input.project, id.value);
      return documentResponse(input, snapshot.contentHash, snapshot.format, `${input.project}-snapshot-${snapshot.id}`);
    }),

    // ---- builds ---------------------------------------------------------------------------------------------
    projectRoute("POST", "/builds", ["snapshots.write"], async (input) => {
      const body = await readJsonBody(input.request, MAX_BUILD_BODY_BYTES, buildBody);
      const { commit, branch, runUrl, log } = body.data;
      const build = await recordBuild(input, input.project, {
        commit,
        branch: branch ?? null,
        runUrl: runUrl ?? null,
        log: log ?? "",
      });
      return json({ project: input.project, build }, 201);
    }),
    projectRoute("GET", "/builds", READ, async (input) => {
      const { items, nextBefore } = await listBuilds(input, input.project, pageQuery(input.url));
      return json({ builds: items, nextBefore });
    }),

    // ---- verdicts -------------------------------------------------------------------------------------------
    projectRoute("GET", "/verdicts", READ, async (input) => {
      const { items, nextBefore } = await listVerdicts(input, input.project, pageQuery(input.url));
      return json({ verdicts: items, nextBefore });
    }),
    projectRoute("GET", "/verdicts/:id", READ, async (input) => {
      const id = positiveInt(input.params.id, "verdict id");
      const formats = requestedFormats(input.url);
      const { record, verdict, snapshot } = await verdictWithSubject(input, input.project, id.value);
      if (!verdict) return json({ record, verdict });
      const report = {
        subject: record.subject,
        project: input.project,
        contractVersion: `v${record.contractVersion}`,
        title: snapshot
          ? snapshotTitle(snapshot)
          : record.subject === "snapshot"
            ? `snapshot id ${record.snapshotId}`
            : `contract v${record.contractVersion}`,
        verdict,
        ...reportFacts(input.url, input.project, record.id, input.env.PUBLIC_URL),
      };
      return verdictAnswer(formats.choice, { record, verdict }, report);
    }),
  ];
}

async function snapshotAnswer(input: ApiRequest & { project: string; url: URL }, id: number): Promise<Response> {
  const formats = requestedFormats(input.url);
  const { snapshot, stored } = await snapshotWithVerdict(input, input.project, id);
  const record = stored?.record;
  const verdict = stored?.verdict ?? null;
  if (!record || !verdict) {
    if (formats.choice.single && formats.choice.single !== "json")
      throw new Failure(
        "not_found",
        `Snapshot ${id} of project "${input.project}" has no stored verdict to render as ${formats.choice.single}.`,
        {},
        "no_verdict",
      );
    return json({ snapshot, verdict });
  }
  const report = {
    subject: "snapshot" as const,
    project: input.project,
    contractVersion: `v${record.contractVersion}`,
    title: snapshotTitle(snapshot),
    verdict,
    ...reportFacts(input.url, input.project, record.id, input.env.PUBLIC_URL),
  };
  return verdictAnswer(formats.choice, { snapshot, verdict }, report);
}

/** `activation`: said whenever the upload breaks clients of the version it was compared with, or is not active. */
function activationStatement(
  policy: BreakingChangesPolicy,
  input: ApiRequest & { project: string },
  contract: { version: number; active: boolean },
  change: { comparedWithVersion: number; verdict: Verdict } | null,
): { activation?: string } {
  if (!change) return {};
  const statement = breakingStatement({
    project: input.project,
    version: contract.version,
    comparedWithVersion: change.comparedWithVersion,
    breakingChanges: breakingCount(change.verdict),
    activated: contract.active,
    policy,
  });
  return statement ? { activation: statement } : {};
}

function contractName(contract: { version: number; label: string | null }): string {
  return `v${contract.version}${contract.label ? ` (${contract.label})` : ""}`;
}
