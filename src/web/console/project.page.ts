/**
 * One project (/admin/projects/:project): its contract versions with labels, the active one, each version's
 * breaking changes against the version it replaced, the latest snapshots with their verdicts, and the failed
 * builds CI reported, and the accepted breaks (accepted-breaks.ts). Every verdict links to its page; every stored
 * document can be downloaded.
 */
import { verdictHistoryChart } from "./charts";
import { MAX_ACCEPTANCES_LISTED } from "../../contracts/services/acceptances";
import { ACCEPTED_BREAK_DONE, acceptedBreaksSection, type AcceptedBreaksNotice } from "./accepted-breaks";
import { projectOverview } from "../../contracts/services/projects";
import type { BuildRecord, ContractRecord, SnapshotRecord, VerdictRecord } from "../../contracts/store/records";
import { html, type SafeHtml } from "../../lib/html";
import { badge, code, emptyState, notFound, scrollTable, shortened, time } from "./components";
import type { ConsoleContext } from "./context";
import { consoleResponse } from "./layout";
import { changesHref, projectHref, verdictHref } from "./verdict.page";
import { judgedLabel, notActiveNote, outcomeBadge } from "./verdict-view";

const CONTRACTS_SHOWN = 50;
const SNAPSHOTS_SHOWN = 20;
const BUILDS_SHOWN = 10;

function changesCell(project: string, contract: ContractRecord): SafeHtml {
  const changes = contract.changes;
  if (!changes) return html`<span class="muted">first version</span>`;
  const label =
    changes.breakingChanges === 0
      ? badge("ok", "no breaking changes")
      : badge("bad", `${changes.breakingChanges} breaking`);
  return html`${label} <span class="muted">vs v${changes.comparedWithVersion}</span><br><a href="${changesHref(project, contract.version)}">Changes of v${contract.version}</a>`;
}

function contractRow(project: string, contract: ContractRecord, verdict: VerdictRecord | null): SafeHtml {
  return html`<tr>
<td><strong>${code(`v${contract.version}`)}</strong>${contract.label ? html` ${code(contract.label)}` : ""}</td>
<td>${contract.active ? badge("ok", "active") : html`<span class="muted">inactive</span>`}</td>
<td>${contract.operationCount === 0 ? badge("warn", "0 operations") : contract.operationCount}</td>
<td>${verdict ? html`${outcomeBadge(verdict.approved, contract.operationCount)} <a href="${verdictHref(project, verdict.id)}">Verdict ${verdict.id}</a><span class="event-meta">${judgedLabel({ kind: "constitution", contractVersion: contract.version })}</span>` : html`<span class="muted">none</span>`}</td>
<td>${changesCell(project, contract)}</td>
<td>${time(contract.uploadedAt)}<span class="event-meta">by ${code(contract.uploadedBy)}</span></td>
<td><a href="${projectHref(project)}/contracts/${contract.version}/document" download>${contract.format.toUpperCase()}</a></td>
</tr>`;
}

function snapshotRow(
  project: string,
  snapshot: SnapshotRecord,
  operations: Map<number, number>,
  activeVersion: number | undefined,
): SafeHtml {
  const verdict =
    snapshot.verdictId === null || snapshot.approved === null
      ? html`<span class="muted">not checked</span>`
      : html`${outcomeBadge(snapshot.approved, operations.get(snapshot.contractVersion))} <a href="${verdictHref(project, snapshot.verdictId)}">${snapshot.totalViolations === 0 ? "No violations" : `${snapshot.totalViolations} ${snapshot.totalViolations === 1 ? "violation" : "violations"}`}</a>`;
  return html`<tr>
<td><strong>${code(`#${snapshot.number}`)}</strong><span class="event-meta">id ${code(snapshot.id)}</span></td>
<td>${code(snapshot.commit.slice(0, 12))}${snapshot.branch ? html`<span class="event-meta">${code(snapshot.branch)}</span>` : ""}</td>
<td>${code(`v${snapshot.contractVersion}`)}${notActiveNote(snapshot.contractVersion, activeVersion)}</td>
<td>${verdict}<span class="event-meta">${judgedLabel({ kind: "snapshot", number: snapshot.number, contractVersion: snapshot.contractVersion })}</span></td>
<td>${time(snapshot.uploadedAt)}<span class="event-meta">by ${code(snapshot.uploadedBy)}</span></td>
<td><a href="${projectHref(project)}/snapshots/${snapshot.id}/document" download>${snapshot.format.toUpperCase()}</a></td>
</tr>`;
}

function buildRow(build: BuildRecord): SafeHtml {
  return html`<tr>
<td>${code(build.commit.slice(0, 12))}${build.branch ? html`<span class="event-meta">${code(build.branch)}</span>` : ""}</td>
<td class="reason">${build.logExcerpt ? shortened(build.logExcerpt, 120) : html`<span class="muted">no log excerpt</span>`}</td>
<td>${build.runUrl && /^https?:\/\//.test(build.runUrl) ? html`<a href="${build.runUrl}" rel="noreferrer noopener">CI run</a>` : html`<span class="muted">none</span>`}</td>
<td>${time(build.recordedAt)}<span class="event-meta">by ${code(build.recordedBy)}</span></td>
</tr>`;
}

export async function projectPage(
  context: ConsoleContext,
  project: string,
  notice: AcceptedBreaksNotice = {},
): Promise<Response> {
  const overview = await projectOverview(context, project, {
    contracts: CONTRACTS_SHOWN,
    snapshots: SNAPSHOTS_SHOWN,
    builds: BUILDS_SHOWN,
    acceptances: MAX_ACCEPTANCES_LISTED,
  });
  if (!overview) return notFound(`${context.organizationName} has no project "${project}".`);
  const { status, contracts, contractVerdicts, snapshots, operations, builds, acceptances } = overview;
  const doneCode = context.url.searchParams.get("done") ?? "";
  const done =
    notice.done ?? (Object.hasOwn(ACCEPTED_BREAK_DONE, doneCode) ? ACCEPTED_BREAK_DONE[doneCode] : undefined);
  const active = status.activeContract;
  const body = html`<p><a href="/admin/projects">\u2190 Projects</a></p>
<h1>${project}</h1>
<p class="lead">Created ${time(status.project.createdAt)} by ${code(status.project.createdBy)}. ${active ? html`Active contract: v${active.version}${active.label ? html` ${code(active.label)}` : ""}.` : "No active contract."}${status.lastBuildFailed ? html` ${badge("bad", "last build failed")}` : ""}</p>
<section aria-labelledby="contracts-heading"><h2 id="contracts-heading">Contract versions</h2>
${scrollTable(
  "Contract versions",
  ["Version", "Active", "Operations", "Constitution", "Changes", "Uploaded", "Document"],
  contracts.items.map((c, i) => contractRow(project, c, contractVerdicts[i] ?? null)),
)}
${contracts.nextBefore !== null ? html`<p class="muted">The ${CONTRACTS_SHOWN} newest versions are shown.</p>` : ""}
</section>
<section aria-labelledby="snapshots-heading"><h2 id="snapshots-heading">Latest snapshots</h2>
${verdictHistoryChart(snapshots.items)}
${
  snapshots.items.length === 0
    ? emptyState(
        "No snapshots yet",
        html`CI uploads one after each build: <span class="ident">POST /api/v1/projects/${project}/snapshots?commit=&lt;sha&gt;</span>.`,
      )
    : scrollTable(
        "Latest snapshots",
        ["Snapshot", "Commit", "Contract", "Verdict", "Uploaded", "Document"],
        snapshots.items.map((s) => snapshotRow(project, s, operations, active?.version)),
      )
}
</section>
${acceptedBreaksSection(context, project, acceptances, { ...notice, ...(done ? { done } : {}) })}
<section aria-labelledby="builds-heading"><h2 id="builds-heading">Failed builds</h2>
${builds.items.length === 0 ? emptyState("No failed builds", "Builds CI reports as failed appear here with their log excerpt.") : scrollTable("Failed builds", ["Commit", "Log excerpt", "CI run", "Recorded"], builds.items.map(buildRow))}
</section>`;
  return consoleResponse(context.frame(project, "projects"), body, notice.status ?? 200);
}
