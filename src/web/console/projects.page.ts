/** Projects of the organization with their active contract and latest verdict (from the ContractStore); each leads to its page. */
import { contractStore } from "../../spec/store/client";
import type { ExchangeRunRecord, ProjectStatus, SnapshotRecord, VerdictRecord } from "../../spec/store/records";
import { html, type SafeHtml } from "../html";
import { badge, code, emptyState, scrollTable, time } from "./components";
import type { ConsoleContext } from "./context";
import { consoleResponse } from "./layout";
import { projectHref, verdictHref } from "./verdict.page";
import { judgedLabel, notActiveNote, outcomeBadge } from "./verdict-view";

function verdictCell(status: ProjectStatus, verdict: VerdictRecord | undefined): SafeHtml {
  if (!verdict) return html`<span class="muted">no verdict yet</span>`;
  const project = status.project.name;
  const snapshot = status.latestSnapshot?.id === verdict.snapshotId ? status.latestSnapshot : null;
  const what =
    verdict.subject === "snapshot"
      ? judgedLabel({ kind: "snapshot", number: snapshot?.number ?? null, contractVersion: verdict.contractVersion })
      : judgedLabel({ kind: "constitution", contractVersion: verdict.contractVersion });
  const operations = status.activeContract?.version === verdict.contractVersion ? status.activeContract.operationCount : undefined;
  return html`${outcomeBadge(verdict.approved, operations)}
<br><a href="${verdictHref(project, verdict.id)}">${what}</a>${verdict.subject === "snapshot" ? notActiveNote(verdict.contractVersion, status.activeContract?.version) : ""}
<br><span class="muted">${verdict.errorCount} ${verdict.errorCount === 1 ? "error" : "errors"}, ${verdict.totalViolations} ${verdict.totalViolations === 1 ? "violation" : "violations"}; ${time(verdict.createdAt)}</span>`;
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
  if (snapshot.approved === null || snapshot.verdictId === null) return html`<span class="muted">${judged}: not checked</span>`;
  return html`${snapshot.approved ? badge("ok", "approved") : badge("bad", "rejected")} <a href="${verdictHref(snapshot.project, snapshot.verdictId)}">${judged}</a>${notActiveNote(snapshot.contractVersion, activeVersion)}`;
}

function row(status: ProjectStatus, verdict: VerdictRecord | undefined, traffic: ExchangeRunRecord | null): SafeHtml {
  const contract = status.activeContract;
  const snapshot = status.latestSnapshot;
  return html`<tr>
<td><a href="${projectHref(status.project.name)}"><strong>${code(status.project.name)}</strong></a><br><span class="muted">${status.project.contractCount} contract ${status.project.contractCount === 1 ? "version" : "versions"}, ${status.project.snapshotCount} ${status.project.snapshotCount === 1 ? "snapshot" : "snapshots"}</span></td>
<td>${contract ? html`${code(`v${contract.version}`)}${contract.label ? html` ${code(contract.label)}` : ""}<br><span class="muted">OpenAPI ${contract.openapiVersion}, ${contract.operationCount} operations; ${time(contract.uploadedAt)}</span>` : html`<span class="muted">none active</span>`}</td>
<td>${snapshot ? html`${code(snapshot.commit.slice(0, 12))}${snapshot.branch ? html` on ${code(snapshot.branch)}` : ""}<br>${snapshotVerdict(snapshot, contract?.version)}<br>${time(snapshot.uploadedAt)}` : html`<span class="muted">none</span>`}</td>
<td>${verdictCell(status, verdict)}</td>
<td>${trafficCell(traffic, contract?.version)}</td>
<td>${status.lastBuildFailed && status.latestFailedBuild ? badge("bad", "last build failed") : snapshot ? badge("neutral", "built") : badge("neutral", "no builds")}</td>
</tr>`;
}

export async function projectsPage(context: ConsoleContext): Promise<Response> {
  const store = contractStore(context.env, context.organizationId);
  const projects = await store.listProjects(null);
  const rows = await Promise.all(
    projects.map(async (project) => {
      const [status, verdicts, traffic] = await Promise.all([store.projectStatus(project.name), store.listVerdicts(project.name, 1, null), store.latestExchangeRun(project.name)]);
      return status ? row(status, verdicts.items[0], traffic) : html``;
    }),
  );
  const body = html`<h1>Projects</h1>
<p class="lead">API contracts of ${context.organizationName} and how the latest build conforms to them. Open a project for its contract versions, snapshots, verdicts and failed builds.</p>
${
  projects.length === 0
    ? emptyState("No projects yet", html`A project appears when its first contract is uploaded: <span class="ident mono">POST /api/v1/projects/{project}/contracts</span> with a token or CI key carrying <span class="ident mono">contracts.write</span>.`)
    : scrollTable("Projects", ["Project", "Active contract", "Latest snapshot and its verdict", "Latest verdict (of what)", "Recorded traffic", "Build"], rows)
}`;
  return consoleResponse(context.frame("Projects", "projects"), body);
}
