/**
 * One verdict (/admin/projects/:project/verdicts/:id) and one contract version's changes against the version
 * it replaced (/admin/projects/:project/contracts/:version/changes): what was checked, the outcome, the
 * violations grouped by rule, the Markdown report, and downloads of the documents and the verdict.
 */
import { violationsChart } from "./charts";
import type { VerdictReport } from "../../engine";
import { renderVerdictMarkdown } from "../../engine";
import { findContract, findContractChanges } from "../../contracts/services/contract-versions";
import { findSnapshot } from "../../contracts/services/snapshots";
import { findVerdict } from "../../contracts/services/verdicts";
import {
  snapshotTitle,
  type ContractRecord,
  type SnapshotRecord,
  type VerdictRecord,
} from "../../contracts/store/records";
import type { Verdict } from "../../engine";
import { html, type SafeHtml } from "../../lib/html";
import { badge, code, notFound, time } from "./components";
import type { ConsoleContext } from "./context";
import { consoleResponse } from "./layout";
import { emptyContractNote, judgedLabel, markdownBlock, outcomeBadge, violationsByRule } from "./verdict-view";

const enc = encodeURIComponent;

export function projectHref(project: string): string {
  return `/admin/projects/${enc(project)}`;
}

export function verdictHref(project: string, id: number): string {
  return `${projectHref(project)}/verdicts/${id}`;
}

export function changesHref(project: string, version: number): string {
  return `${projectHref(project)}/contracts/${version}/changes`;
}

function contractName(contract: ContractRecord | null, version: number): string {
  return contract?.label ? `v${version} (${contract.label})` : `v${version}`;
}

interface LoadedVerdict {
  record: VerdictRecord;
  verdict: Verdict;
  snapshot: SnapshotRecord | null;
  contract: ContractRecord | null;
  report: VerdictReport;
}

/** A stored verdict with what it was about, or the page that says why it cannot be shown. */
export async function loadVerdict(
  context: ConsoleContext,
  project: string,
  id: number,
): Promise<LoadedVerdict | { response: Response }> {
  const found = await findVerdict(context, project, id);
  if (!found) return { response: notFound(`Project "${project}" has no verdict ${id}.`) };
  const { record, verdict } = found;
  const [snapshot, contract] = await Promise.all([
    record.snapshotId === null ? null : findSnapshot(context, project, record.snapshotId),
    findContract(context, project, record.contractVersion),
  ]);
  if (!verdict) return { response: notFound(`The body of verdict ${id} of "${project}" cannot be read.`) };
  const title = snapshot
    ? snapshotTitle(snapshot)
    : record.subject === "snapshot"
      ? `snapshot id ${record.snapshotId}`
      : `contract ${contractName(contract, record.contractVersion)} against the constitution`;
  const report: VerdictReport = {
    subject: record.subject,
    project,
    contractVersion: contractName(contract, record.contractVersion),
    title,
    verdict,
    link: `${context.env.PUBLIC_URL.replace(/\/+$/, "")}${verdictHref(project, id)}`,
  };
  return { record, verdict, snapshot, contract, report };
}

function downloads(items: Array<{ href: string; label: string }>): SafeHtml {
  return html`<section aria-labelledby="downloads-heading"><h2 id="downloads-heading">Downloads</h2>
<ul class="downloads">${items.map((item) => html`<li><a href="${item.href}" download>${item.label}</a></li>`)}</ul></section>`;
}

function reportDownloads(base: string): Array<{ href: string; label: string }> {
  return [
    { href: `${base}/report.json`, label: "Verdict (JSON)" },
    { href: `${base}/report.markdown`, label: "Verdict (Markdown)" },
    { href: `${base}/report.junit`, label: "Verdict (JUnit XML)" },
    { href: `${base}/report.sarif`, label: "Verdict (SARIF)" },
  ];
}

function counts(verdict: Verdict): string {
  if (verdict.totalViolations === 0) return "No violations.";
  const errors =
    verdict.summary.length > 0
      ? verdict.summary.filter((r) => r.severity === "error").reduce((sum, r) => sum + r.count, 0)
      : verdict.violations.filter((v) => v.severity === "error").length;
  return `${verdict.totalViolations} ${verdict.totalViolations === 1 ? "violation" : "violations"}; ${errors === 0 ? "none" : errors} of severity error.`;
}

export async function verdictPage(context: ConsoleContext, project: string, id: number): Promise<Response> {
  const loaded = await loadVerdict(context, project, id);
  if ("response" in loaded) return loaded.response;
  const { record, verdict, snapshot, contract, report } = loaded;
  const base = verdictHref(project, id);
  const files = [
    ...(snapshot
      ? [
          {
            href: `${projectHref(project)}/snapshots/${snapshot.id}/document`,
            label: `Snapshot document (${snapshot.format.toUpperCase()})`,
          },
        ]
      : []),
    ...(contract
      ? [
          {
            href: `${projectHref(project)}/contracts/${contract.version}/document`,
            label: `Contract v${contract.version} document (${contract.format.toUpperCase()})`,
          },
        ]
      : []),
    ...reportDownloads(base),
  ];
  const body = html`<p><a href="${projectHref(project)}">\u2190 ${project}</a></p>
<h1>Verdict ${id} of ${project}</h1>
<p class="lead">${record.subject === "snapshot" ? "An implementation snapshot from CI checked against its contract version and the constitution." : "A contract version checked against the organization's constitution."}</p>
${contract?.operationCount === 0 ? emptyContractNote(contract.version) : ""}
<dl class="facts">
<dt>Outcome</dt><dd>${outcomeBadge(record.approved, contract?.operationCount)}</dd>
<dt>Judged</dt><dd>${judgedLabel(record.subject === "snapshot" ? { kind: "snapshot", number: snapshot?.number ?? null, contractVersion: record.contractVersion } : { kind: "constitution", contractVersion: record.contractVersion })}${
    record.subject === "snapshot" && contract && !contract.active
      ? html` ${badge("warn", "not the active contract")}<span class="event-meta">v${record.contractVersion} is no longer active: this verdict says nothing about the active contract. Re-check the snapshot against it, or wait for CI's next snapshot.</span>`
      : ""
  }</dd>
<dt>Checked</dt><dd>${snapshot ? html`snapshot ${snapshot.number} of ${project} <span class="muted">(id ${snapshot.id})</span>, commit ${code(snapshot.commit)}${snapshot.branch ? html` on ${code(snapshot.branch)}` : ""}` : report.title}</dd>
<dt>Contract</dt><dd>${contractName(contract, record.contractVersion)}${contract ? html` <span class="muted">${contract.operationCount} ${contract.operationCount === 1 ? "operation" : "operations"}</span>` : ""}</dd>
<dt>Recorded</dt><dd>${time(record.createdAt)}</dd>
<dt>Violations</dt><dd>${counts(verdict)}</dd>
${snapshot?.runUrl && /^https?:\/\//.test(snapshot.runUrl) ? html`<dt>CI run</dt><dd><a href="${snapshot.runUrl}" rel="noreferrer noopener">${snapshot.runUrl}</a></dd>` : ""}
</dl>
${downloads(files)}
<section aria-labelledby="violations-heading"><h2 id="violations-heading">Violations by rule</h2>
${violationsChart(verdict.violations)}
${violationsByRule(verdict)}
</section>
<section aria-labelledby="markdown-heading"><h2 id="markdown-heading">Markdown report</h2>
<p class="muted">What CI posts on a pull request (<span class="ident">--format markdown</span>); shown as text.</p>
${markdownBlock(renderVerdictMarkdown(verdict, { project, subject: record.subject, contractVersion: report.contractVersion!, title: report.title }), "Markdown report")}
</section>`;
  return consoleResponse(context.frame(`Verdict ${id} of ${project}`, "projects"), body);
}

export async function contractChangesPage(
  context: ConsoleContext,
  project: string,
  version: number,
): Promise<Response> {
  const found = await findContractChanges(context, project, version);
  if (!found) return notFound(`Project "${project}" has no contract version ${version}.`);
  const { contract, changes: verdict } = found;
  if (!contract.changes || !found.compared)
    return notFound(
      `Contract v${version} of "${project}" was its first version: there is no earlier version it was compared with.`,
    );
  if (!verdict) return notFound(`The stored comparison of contract v${version} of "${project}" cannot be read.`);
  const from = contract.changes.comparedWithVersion;
  const breaking = contract.changes.breakingChanges;
  const body = html`<p><a href="${projectHref(project)}">\u2190 ${project}</a></p>
<h1>Contract v${version} of ${project}: changes since v${from}</h1>
<p class="lead">What this version changes for clients written against v${from}, the version that was active when it was uploaded.</p>
<dl class="facts">
<dt>Outcome</dt><dd>${breaking === 0 ? badge("ok", "no breaking changes") : badge("bad", `${breaking} breaking ${breaking === 1 ? "change" : "changes"}`)}</dd>
<dt>Changes found</dt><dd>${contract.changes.totalViolations}</dd>
<dt>Active</dt><dd>${contract.active ? badge("ok", "active") : badge("neutral", "not active")}</dd>
<dt>Uploaded</dt><dd>${time(contract.uploadedAt)} <span class="muted">by</span> ${code(contract.uploadedBy)}</dd>
</dl>
${downloads([
  { href: `${projectHref(project)}/contracts/${from}/document`, label: `Contract v${from} document` },
  { href: `${projectHref(project)}/contracts/${version}/document`, label: `Contract v${version} document` },
])}
<section aria-labelledby="violations-heading"><h2 id="violations-heading">Changes by rule</h2>
${violationsByRule(verdict)}
</section>
<section aria-labelledby="markdown-heading"><h2 id="markdown-heading">Markdown changelog</h2>
${markdownBlock(renderVerdictMarkdown(verdict, { project, subject: "contract-change", contractVersion: `v${from}`, title: `v${from} \u2192 v${version}` }), "Markdown changelog")}
</section>`;
  return consoleResponse(context.frame(`Changes of contract v${version} of ${project}`, "projects"), body);
}
