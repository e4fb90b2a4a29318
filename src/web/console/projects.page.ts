/** Projects of the organization with their active contract and latest verdict (from the ContractStore); each leads to its page. */
import { formatBytes, storageReport, type StorageReport } from "../../contracts/services/storage";
import { listProjects, projectRow } from "../../contracts/services/projects";
import { isProjectName } from "../../contracts/store/names";
import type { ExchangeRunRecord, ProjectStatus, SnapshotRecord, VerdictRecord } from "../../contracts/store/records";
import { html, type SafeHtml } from "../../lib/html";
import { cutPage, oneMore } from "../../lib/page";
import { badge, code, emptyState, scrollTable, time } from "./components";
import type { ConsoleContext } from "./context";
import { consoleResponse } from "./layout";
import { projectHref, verdictHref } from "./verdict.page";
import { judgedLabel, notActiveNote } from "./verdict-view";

/** The active contract's own verdict: its check against the constitution, named as such. */
function constitutionCell(status: ProjectStatus, verdict: VerdictRecord | null): SafeHtml {
  const contract = status.activeContract;
  if (!contract || !verdict) return html``;
  const outcome =
    contract.operationCount === 0
      ? badge("warn", "no operations")
      : verdict.approved
        ? badge("ok", "constitution ok")
        : badge("bad", "breaks the constitution");
  return html`<br>${outcome} <a href="${verdictHref(status.project.name, verdict.id)}">${judgedLabel({ kind: "constitution", contractVersion: contract.version })}</a>`;
}

/** The latest upload of recorded traffic (HAR / NDJSON from integration tests) and its verdict. */
function trafficCell(run: ExchangeRunRecord | null, activeVersion: number | undefined): SafeHtml {
  if (!run) return html`<span class="muted">none recorded</span>`;
  return html`${run.approved ? badge("ok", "approved") : badge("bad", "rejected")}
<br><span>${judgedLabel({ kind: "traffic", runId: run.id, contractVersion: run.contractVersion })}: ${run.exchangeCount} ${run.exchangeCount === 1 ? "exchange" : "exchanges"}${run.commit ? html` at ${code(run.commit.slice(0, 12))}` : ""}</span>${notActiveNote(run.contractVersion, activeVersion)}
<br><span class="muted">${run.errorCount} ${run.errorCount === 1 ? "error" : "errors"}, ${run.totalViolations} ${run.totalViolations === 1 ? "violation" : "violations"}; ${time(run.uploadedAt)}</span>`;
}

/** The latest snapshot's own verdict, named by the contract version it was judged against. */
function snapshotVerdict(snapshot: SnapshotRecord, activeVersion: number | undefined): SafeHtml {
  const judged = judgedLabel({ kind: "snapshot", number: snapshot.number, contractVersion: snapshot.contractVersion });
  if (snapshot.approved === null || snapshot.verdictId === null)
    return html`<span class="muted">${judged}: not checked</span>`;
  return html`${snapshot.approved ? badge("ok", "approved") : badge("bad", "rejected")} <a href="${verdictHref(snapshot.project, snapshot.verdictId)}">${judged}</a>${notActiveNote(snapshot.contractVersion, activeVersion)}`;
}

function row(status: ProjectStatus, constitution: VerdictRecord | null, traffic: ExchangeRunRecord | null): SafeHtml {
  const contract = status.activeContract;
  const snapshot = status.latestSnapshot;
  return html`<tr>
<td><a href="${projectHref(status.project.name)}"><strong>${code(status.project.name)}</strong></a><br><span class="muted">${status.project.contractCount} contract ${status.project.contractCount === 1 ? "version" : "versions"}, ${status.project.snapshotCount} ${status.project.snapshotCount === 1 ? "snapshot" : "snapshots"}</span></td>
<td>${contract ? html`${code(`v${contract.version}`)}${contract.label ? html` ${code(contract.label)}` : ""}<br><span class="muted">OpenAPI ${contract.openapiVersion}, ${contract.operationCount} operations; ${time(contract.uploadedAt)}</span>${constitutionCell(status, constitution)}` : html`<span class="muted">none active</span>`}</td>
<td>${snapshot ? html`${code(snapshot.commit.slice(0, 12))}${snapshot.branch ? html` on ${code(snapshot.branch)}` : ""}<br>${snapshotVerdict(snapshot, contract?.version)}<br>${time(snapshot.uploadedAt)}` : html`<span class="muted">none</span>`}</td>
<td>${trafficCell(traffic, contract?.version)}</td>
<td>${status.lastBuildFailed && status.latestFailedBuild ? badge("bad", "last build failed") : snapshot ? badge("neutral", "built") : badge("neutral", "no builds")}</td>
</tr>`;
}

/** What the organization stores against its quota, and per project with its retention (GET /api/v1/storage). */
function storageSection(report: StorageReport): SafeHtml {
  const share = report.quotaBytes > 0 ? Math.min(100, (report.usedBytes / report.quotaBytes) * 100) : 0;
  const tone = share >= 90 ? "bad" : share >= 75 ? "warn" : "ok";
  const lastRun = report.retentionRuns[0];
  const rows = report.projects.map(
    (project) => html`<tr>
<td>${code(project.name)}</td>
<td>${project.snapshots}</td>
<td>${formatBytes(project.documentBytes)}</td>
<td>${time(project.oldestSnapshotAt)}</td>
<td>${project.retention.snapshotDays} days, newest ${project.retention.keepPerBranch} per branch</td>
</tr>`,
  );
  return html`<h2 id="storage">Storage</h2>
<p>${badge(tone, `${share.toFixed(share < 10 ? 1 : 0)}% of quota`)} ${formatBytes(report.usedBytes)} of ${formatBytes(report.quotaBytes)}: records ${formatBytes(report.databaseBytes)}, documents ${formatBytes(report.bucketBytes)}. Uploads past the quota are refused (507); shorten retention in the organization settings (<span class="ident mono">retention</span>) or ask the operator to raise the quota. Retention runs every ${report.retention.runEveryHours} hours${lastRun ? html`; the last run that deleted anything: ${time(lastRun.ranAt)}, ${lastRun.snapshots} snapshots, ${formatBytes(lastRun.contentBytes)}` : ""}.</p>
${rows.length === 0 ? html`` : scrollTable("Storage per project", ["Project", "Snapshots", "Documents", "Oldest snapshot", "Kept"], rows, { compact: true })}`;
}

/** How many projects the page shows at once: each row reads its project's own store. */
export const PROJECTS_PER_PAGE = 50;

export async function projectsPage(context: ConsoleContext): Promise<Response> {
  const asked = context.url.searchParams.get("after");
  const after = asked !== null && isProjectName(asked) ? asked : null;
  const [listed, storage] = await Promise.all([
    listProjects(context, { limit: oneMore(PROJECTS_PER_PAGE), after }),
    storageReport(context.env, context.organizationId, null, { limit: PROJECTS_PER_PAGE, after }),
  ]);
  const { items: projects, nextAfter } = cutPage(listed, PROJECTS_PER_PAGE, (project) => project.name);
  const rows = await Promise.all(
    projects.map(async (project) => {
      const found = await projectRow(context, project.name);
      return found ? row(found.status, found.activeVerdict, found.traffic) : html``;
    }),
  );
  const body = html`<h1>Projects</h1>
<p class="lead">API contracts of ${context.organizationName} and how the latest build conforms to them. Open a project for its contract versions, snapshots, verdicts and failed builds.</p>
${
  projects.length === 0 && after === null
    ? emptyState(
        "No projects yet",
        html`A project appears when its first contract is uploaded: <span class="ident mono">POST /api/v1/projects/{project}/contracts</span> with a token or CI key carrying <span class="ident mono">contracts.write</span>.`,
      )
    : scrollTable(
        "Projects",
        [
          "Project",
          "Active contract and its constitution check",
          "Latest snapshot and its verdict",
          "Recorded traffic",
          "Build",
        ],
        rows,
      )
}
${after !== null || nextAfter !== null ? html`<nav class="pager" aria-label="Pages of projects"><span class="muted">${PROJECTS_PER_PAGE} projects per page, by name.</span>${after !== null ? html`<a href="/admin/projects">First projects</a>` : ""}${nextAfter !== null ? html`<a href="/admin/projects?after=${encodeURIComponent(nextAfter)}">Next projects</a>` : ""}</nav>` : ""}
${storageSection(storage)}`;
  return consoleResponse(context.frame("Projects", "projects"), body);
}
