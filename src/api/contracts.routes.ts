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
import { closestName } from "../lib/closest-name";
import type { Verdict } from "../engine";
import { breakingStatement } from "../contracts/breaking-statement";
import { Failure } from "../core/failure";
import { z } from "zod";
import { contractStore, projectPlace, readVerdictBody, streamContent } from "../contracts/store/client";
import type { ContractChangeListener } from "../contracts/store/events";
import { snapshotTitle } from "../contracts/store/records";
import { MAX_BUILD_BODY_BYTES, MAX_LOG_EXCERPT_CHARS } from "../contracts/store/limits";
import { breakingChangesPolicy, type BreakingChangesPolicy } from "../engine";
import { conformanceConfigFor } from "../contracts/services/organization-config";
import { renderVerdictMarkdown } from "../engine";
import { compareContracts } from "../contracts/services/drafts";
import { startSnapshotUpload, uploadContract, uploadSnapshot } from "../contracts/services/uploads";
import { quotaUse, storageRefusal } from "../contracts/services/storage";
import { logWarn } from "../lib/log";
import {
  breakingCount,
  changeSummary,
  invalidDocument,
  invalidQuery,
  json,
  pageQuery,
  positiveInt,
  projectRoute,
  queryObject,
  readDocument,
  readJsonBody,
  storeFailure,
  unknownProject,
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

const store = (input: ApiRequest) => contractStore(input.env, input.principal.organizationId);

/** Where the route's project lives (its own store, or the organization's for a project from before the split). */
const place = (input: ApiRequest & { project: string }) =>
  projectPlace(input.env, input.principal.organizationId, input.project);

const projectStore = async (input: ApiRequest & { project: string }) => (await place(input)).store;

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
  const content = await streamContent(await place(input), contentHash);
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
        const limit = unpagedLimit(new URL(input.request.url));
        const only =
          input.principal.projects && !input.principal.projects.includes("*") ? [...input.principal.projects] : null;
        return json({ projects: await store(input).listProjects(only, limit.limit) });
      },
    },
    projectRoute("GET", "", READ, async (input) => {
      const status = await (await projectStore(input)).projectStatus(input.project);
      if (!status) throw unknownProject(input.project);
      return json(status);
    }),

    // ---- contracts ------------------------------------------------------------------------------------------
    projectRoute("POST", "/contracts", ["contracts.write"], async (input) => {
      const query = z
        .object({ label: labelText.optional(), allowEmpty: allowEmptyFlag.optional(), create: createFlag.optional() })
        .safeParse(queryObject(input.url, ["label", "allowEmpty", "create"]));
      if (!query.success) throw invalidQuery(query.error);
      if (query.data.create !== "true") await refuseProbableTypo(input);
      const formats = requestedFormats(input.url);
      const body = await readDocument(input.request);
      const who = { organizationId: input.principal.organizationId, uploadedBy: input.principal.userId };
      const located = bytesForLocations(formats.choice, body.holder.bytes);
      const result = await uploadContract(input.env, who, input.project, query.data.label ?? null, body.holder.bytes!, {
        allowEmpty: query.data.allowEmpty === "true",
      });
      if (!result.ok)
        throw result.code === "invalid_document"
          ? invalidDocument(result.problems)
          : storeFailure(result, input.project);
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
      const page = pageQuery(input.url);
      if (!(await (await projectStore(input)).getProject(input.project))) throw unknownProject(input.project);
      const { items, nextBefore } = await (await projectStore(input)).listContracts(
        input.project,
        page.limit,
        page.before,
      );
      return json({ contracts: items, nextBefore });
    }),
    projectRoute("GET", "/contracts/active", READ, async (input) => {
      const contract = await (await projectStore(input)).getActiveContract(input.project);
      if (!contract) throw unknownProject(input.project);
      return json({ contract });
    }),
    projectRoute("GET", "/contracts/:version", READ, async (input) => {
      const version = positiveInt(input.params.version, "version");
      const contract = await (await projectStore(input)).getContract(input.project, version.value);
      if (!contract)
        throw new Failure(
          "not_found",
          `Project "${input.project}" has no contract version ${version.value}.`,
          {},
          "unknown_contract",
        );
      const verdict = contract.verdictId
        ? await (await projectStore(input)).getVerdict(input.project, contract.verdictId)
        : null;
      return json({
        contract,
        verdict: verdict ? await readVerdictBody(await place(input), verdict.verdictHash) : null,
      });
    }),
    projectRoute("GET", "/contracts/:version/document", READ, async (input) => {
      const version = positiveInt(input.params.version, "version");
      const contract = await (await projectStore(input)).getContract(input.project, version.value);
      if (!contract)
        throw new Failure(
          "not_found",
          `Project "${input.project}" has no contract version ${version.value}.`,
          {},
          "unknown_contract",
        );
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
      const refused = await breakingActivation(input, version.value, query.data.allowBreaking === "true");
      if (refused) return refused;
      const result = await (await projectStore(input)).activateContract(input.project, version.value);
      if (!result.ok) throw storeFailure(result, input.project);
      announceActiveContract(changes, input, result.contract.version);
      return json({ contract: result.contract });
    }),

    // ---- snapshots ------------------------------------------------------------------------------------------
    projectRoute("POST", "/snapshots", ["snapshots.write"], async (input) => {
      const query = snapshotQuery.safeParse(queryObject(input.url, ["commit", "branch", "runUrl"]));
      if (!query.success) throw invalidQuery(query.error, SNAPSHOT_PLACEHOLDERS);
      const formats = requestedFormats(input.url);
      // Refuse early, before reading a large body, when there is nothing to check against.
      // The same answer then feeds the upload: the active version and where to read it.
      const start = await startSnapshotUpload(input.env, input.principal.organizationId, input.project);
      if (!start.context.active) throw unknownProject(input.project);
      // A full store refuses before the body is read: CI does not send 13 MB to hear "no room".
      const declared = Number(input.request.headers.get("content-length") ?? 0);
      const use = await quotaUse(start.place, start.context.storage);
      const full = await storageRefusal(input.env, input.principal.organizationId, use, {
        project: input.project,
        bytes: Number.isSafeInteger(declared) && declared > 0 ? declared : 0,
      });
      if (full) throw storeFailure(full, input.project);
      const body = await readDocument(input.request);
      const who = { organizationId: input.principal.organizationId, uploadedBy: input.principal.userId };
      const meta = { commit: query.data.commit, branch: query.data.branch ?? null, runUrl: query.data.runUrl ?? null };
      const located = bytesForLocations(formats.choice, body.holder.bytes);
      const result = await uploadSnapshot(input.env, who, input.project, meta, body.holder, start);
      if (!result.ok)
        throw result.code === "invalid_document"
          ? invalidDocument(result.problems)
          : storeFailure(result, input.project);
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
      const page = pageQuery(input.url);
      if (!(await (await projectStore(input)).getProject(input.project))) throw unknownProject(input.project);
      const { items, nextBefore } = await (await projectStore(input)).listSnapshots(
        input.project,
        page.limit,
        page.before,
      );
      return json({ snapshots: items, nextBefore });
    }),
    projectRoute("GET", "/snapshots/latest", READ, async (input) => {
      const status = await (await projectStore(input)).projectStatus(input.project);
      if (!status) throw unknownProject(input.project);
      if (!status.latestSnapshot)
        throw new Failure(
          "not_found",
          `Project "${input.project}" has no snapshot yet: upload one from CI (POST /api/v1/projects/${input.project}/snapshots).`,
          {},
          "no_snapshot",
        );
      return snapshotWithVerdict(input, status.latestSnapshot.id);
    }),
    projectRoute("GET", "/snapshots/:id", READ, async (input) => {
      const id = positiveInt(input.params.id, "snapshot id");
      return snapshotWithVerdict(input, id.value);
    }),
    projectRoute("GET", "/snapshots/:id/document", READ, async (input) => {
      const id = positiveInt(input.params.id, "snapshot id");
      const snapshot = await (await projectStore(input)).getSnapshot(input.project, id.value);
      if (!snapshot)
        throw new Failure(
          "not_found",
          `Project "${input.project}" has no snapshot ${id.value}.`,
          {},
          "unknown_snapshot",
        );
      return documentResponse(input, snapshot.contentHash, snapshot.format, `${input.project}-snapshot-${snapshot.id}`);
    }),

    // ---- builds ---------------------------------------------------------------------------------------------
    projectRoute("POST", "/builds", ["snapshots.write"], async (input) => {
      const body = await readJsonBody(input.request, MAX_BUILD_BODY_BYTES, buildBody);
      const { commit, branch, runUrl, log } = body.data;
      const excerpt = logExcerpt(log ?? "");
      const full = await storageRefusal(input.env, input.principal.organizationId, await quotaUse(await place(input)), {
        project: input.project,
        bytes: excerpt.length,
      });
      if (full) throw storeFailure(full, input.project);
      const result = await (await projectStore(input)).recordBuild({
        project: input.project,
        commit,
        branch: branch ?? null,
        runUrl: runUrl ?? null,
        logExcerpt: excerpt,
        recordedBy: input.principal.userId,
      });
      if (!result.ok) throw storeFailure(result, input.project);
      return json({ project: input.project, build: result.build }, 201);
    }),
    projectRoute("GET", "/builds", READ, async (input) => {
      const page = pageQuery(input.url);
      if (!(await (await projectStore(input)).getProject(input.project))) throw unknownProject(input.project);
      const { items, nextBefore } = await (await projectStore(input)).listBuilds(
        input.project,
        page.limit,
        page.before,
      );
      return json({ builds: items, nextBefore });
    }),

    // ---- verdicts -------------------------------------------------------------------------------------------
    projectRoute("GET", "/verdicts", READ, async (input) => {
      const page = pageQuery(input.url);
      if (!(await (await projectStore(input)).getProject(input.project))) throw unknownProject(input.project);
      const { items, nextBefore } = await (await projectStore(input)).listVerdicts(
        input.project,
        page.limit,
        page.before,
      );
      return json({ verdicts: items, nextBefore });
    }),
    projectRoute("GET", "/verdicts/:id", READ, async (input) => {
      const id = positiveInt(input.params.id, "verdict id");
      const formats = requestedFormats(input.url);
      const record = await (await projectStore(input)).getVerdict(input.project, id.value);
      if (!record)
        throw new Failure("not_found", `Project "${input.project}" has no verdict ${id.value}.`, {}, "unknown_verdict");
      const verdict = await readVerdictBody(await place(input), record.verdictHash);
      if (!verdict) return json({ record, verdict });
      const snapshot =
        record.snapshotId === null
          ? null
          : await (await projectStore(input)).getSnapshot(input.project, record.snapshotId);
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

async function snapshotWithVerdict(input: ApiRequest & { project: string; url: URL }, id: number): Promise<Response> {
  const snapshot = await (await projectStore(input)).getSnapshot(input.project, id);
  if (!snapshot)
    throw new Failure("not_found", `Project "${input.project}" has no snapshot ${id}.`, {}, "unknown_snapshot");
  const formats = requestedFormats(input.url);
  const record = snapshot.verdictId
    ? await (await projectStore(input)).getVerdict(input.project, snapshot.verdictId)
    : null;
  const verdict = record ? await readVerdictBody(await place(input), record.verdictHash) : null;
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

/** Under the "refuse" policy, activating a version that breaks clients of the active one needs ?allowBreaking=true. */
async function breakingActivation(
  input: ApiRequest & { project: string },
  version: number,
  allowBreaking: boolean,
): Promise<Response | null> {
  const config = await conformanceConfigFor(input.env, input.principal.organizationId);
  if (breakingChangesPolicy(config, input.principal.organizationId) !== "refuse") return null;
  const active = await (await projectStore(input)).getActiveContract(input.project);
  if (!active || active.version === version) return null;
  const comparison = await compareContracts(input.env, input.principal.organizationId, input.project, active.version, {
    version,
  });
  if (!comparison.ok)
    throw comparison.code === "invalid_document"
      ? invalidDocument(comparison.problems)
      : storeFailure(comparison, input.project);
  const count = breakingCount(comparison.verdict);
  if (count === 0) return null;
  if (allowBreaking) {
    input.note(`activated with ${count} breaking changes vs v${active.version} (allowBreaking)`);
    return null;
  }
  throw new Failure(
    "conflict",
    `Contract version ${version} breaks clients of the active version ${active.version} (${count} breaking change${count === 1 ? "" : "s"}) and this organization's policy refuses that: review them, then activate with ?allowBreaking=true.`,
    { breakingChanges: changeSummary(active.version, comparison.verdict) },
    "breaking_changes",
  );
}

/**
 * A contract upload creates its project when there is none. A name one keystroke from a project the caller can
 * see is much more likely a typo (`shpo` for `shop`) than a new API: refused with the closest name
 * unless the upload says ?create=true.
 */
async function refuseProbableTypo(input: ApiRequest & { project: string }): Promise<void> {
  if (await (await projectStore(input)).getProject(input.project)) return;
  const visible =
    input.principal.projects && !input.principal.projects.includes("*") ? [...input.principal.projects] : null;
  const suggestion = closestName(
    input.project,
    (await store(input).listProjects(visible)).map((p) => p.name),
  );
  if (!suggestion) return;
  throw new Failure(
    "not_found",
    `There is no project "${input.project}"; did you mean "${suggestion}"? Nothing was stored. To create a new project "${input.project}", upload again with ?create=true (arbiter contract --create).`,
    { suggestion, nextStep: `POST /api/v1/projects/${input.project}/contracts?create=true` },
    "unknown_project",
  );
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

/** The end of a log, where the error usually is, marked when cut. */
export function logExcerpt(log: string): string {
  if (log.length <= MAX_LOG_EXCERPT_CHARS) return log;
  return `[... ${log.length - MAX_LOG_EXCERPT_CHARS} earlier characters cut ...]\n${log.slice(-MAX_LOG_EXCERPT_CHARS)}`;
}
