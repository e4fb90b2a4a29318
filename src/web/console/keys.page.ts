/**
 * CI keys: the list with status badges and Revoke forms, and the creation form. The new key's secret is on
 * the page that answers the creation, once; the list never shows a secret or its hash.
 */
import { CI_KEY_SCOPES } from "../../oauth/cikeys";
import { listCiKeys, type PresentedCiKey } from "../../oauth/cikey-admin";
import { listProjects } from "../../contracts/services/projects";
import { getPolicy } from "../../policy/load";
import { html, type SafeHtml } from "../../lib/html";
import { cutPage, oneMore } from "../../lib/page";
import { badge, code, csrfInput, emptyState, flash, problem, scrollTable, time } from "./components";
import type { ConsoleContext } from "./context";
import { consoleResponse } from "./layout";

/** What the creation form was filled with, to show it again after a refusal. */
export interface KeyFormValues {
  name: string;
  allProjects: boolean;
  projects: string[];
  otherProjects: string;
  scopes: string[];
  expiresOn: string;
}

const EMPTY_FORM: KeyFormValues = {
  name: "",
  allProjects: false,
  projects: [],
  otherProjects: "",
  scopes: ["snapshots.write", "contracts.read"],
  expiresOn: "",
};

const STATUS_TONE = { active: "ok", revoked: "bad", expired: "warn" } as const;

function keyRow(context: ConsoleContext, key: PresentedCiKey): SafeHtml {
  return html`<tr>
<td><strong>${key.name}</strong><br><span class="muted">${code(key.id)}</span></td>
<td>${key.projects.includes("*") ? html`<em>all projects</em>` : key.projects.map((p) => html`${code(p)} `)}</td>
<td>${key.scopes.map((s) => html`${code(s)} `)}</td>
<td>${time(key.createdAt)}<br><span class="muted">by ${key.createdBy}</span></td>
<td>${key.expiresAt ? time(key.expiresAt) : html`<span class="muted">no expiry</span>`}</td>
<td>${badge(STATUS_TONE[key.status], key.status)}${key.revokedAt ? html`<br><span class="muted">${time(key.revokedAt)}</span>` : ""}</td>
<td>${
    key.status === "revoked"
      ? html`<span class="muted">none</span>`
      : html`<form class="inline" method="post" action="/admin/keys/revoke">${csrfInput(context.csrf)}<input type="hidden" name="id" value="${key.id}">
<button type="submit" class="danger small" aria-label="Revoke CI key ${key.name}">Revoke</button></form>`
  }</td>
</tr>`;
}

/** The most projects the key form offers as boxes to tick; the others are typed by name. */
export const KEY_FORM_PROJECTS = 50;

function offeredProjects(listed: ReadonlyArray<{ name: string }>): { projects: string[]; more: boolean } {
  const page = cutPage(listed, KEY_FORM_PROJECTS, (project) => project.name);
  return { projects: page.items.map((project) => project.name), more: page.nextAfter !== null };
}

function createForm(
  context: ConsoleContext,
  listed: { projects: string[]; more: boolean },
  values: KeyFormValues,
): SafeHtml {
  const { projects, more } = listed;
  // What the administrator's role may grant in this organization (its cap included), as creating the key checks.
  const grantable = new Set(context.principal.scopes);
  const scopes = CI_KEY_SCOPES.filter((scope) => grantable.has(scope));
  return html`<section class="card" aria-labelledby="create-key">
<h2 id="create-key">Create a CI key</h2>
<p class="muted">A key lets a pipeline call the REST API for the chosen projects with the chosen scopes. It is shown once, right after you create it.</p>
<form method="post" action="/admin/keys">${csrfInput(context.csrf)}
<div class="field"><label for="key-name">Name <span class="hint">What the key is for, e.g. "orders-api GitHub Actions"</span></label>
<input type="text" id="key-name" name="name" required maxlength="80" value="${values.name}"></div>
<fieldset><legend>Projects</legend>
<label class="check"><input type="checkbox" name="project" value="*"${values.allProjects ? html` checked` : ""}> All projects of ${context.organizationName}</label>
${projects.map((p) => html`<label class="check"><input type="checkbox" name="project" value="${p}"${values.projects.includes(p) ? html` checked` : ""}> ${code(p)}</label>`)}
<div class="field"><label for="key-other-projects">Other projects <span class="hint">Comma-separated names, for projects that have no contract yet${more ? ` or are not listed above (the first ${KEY_FORM_PROJECTS} by name are)` : ""}</span></label>
<input type="text" id="key-other-projects" name="otherProjects" value="${values.otherProjects}"></div>
</fieldset>
<fieldset><legend>Scopes</legend>
${scopes.map((s) => html`<label class="check"><input type="checkbox" name="scope" value="${s}"${values.scopes.includes(s) ? html` checked` : ""}> ${code(s)} <span class="muted">${getPolicy().scopes[s]?.description ?? ""}</span></label>`)}
</fieldset>
<div class="field"><label for="key-expiry">Expires on <span class="hint">Optional; the key stops working at 00:00 UTC that day</span></label>
<input type="date" id="key-expiry" name="expiresOn" value="${values.expiresOn}"></div>
<div class="actions"><button type="submit" class="primary">Create key</button></div>
</form>
</section>`;
}

/** Keys one page lists, newest first. */
export const KEYS_PER_PAGE = 100;

function keysPager(after: string | null, nextAfter: string | null): SafeHtml | string {
  if (after === null && nextAfter === null) return "";
  return html`<nav class="pager" aria-label="Pages of CI keys"><span class="muted">${KEYS_PER_PAGE} keys per page, newest first.</span>${after !== null ? html`<a href="/admin/keys">Newest keys</a>` : ""}${nextAfter !== null ? html`<a href="/admin/keys?after=${encodeURIComponent(nextAfter)}#keys-heading">Older keys</a>` : ""}</nav>`;
}

export interface KeysPageOptions {
  done?: string;
  error?: string;
  status?: number;
  values?: KeyFormValues;
  /** Only on the answer to a successful creation. */
  created?: { key: PresentedCiKey; secret: string };
}

export async function keysPage(context: ConsoleContext, options: KeysPageOptions = {}): Promise<Response> {
  const after = context.url.searchParams.get("after");
  const [listed, projects] = await Promise.all([
    listCiKeys(context.env, context.organizationId, { limit: oneMore(KEYS_PER_PAGE), after }),
    listProjects(context, { limit: oneMore(KEY_FORM_PROJECTS) }),
  ]);
  const { items: keys, nextAfter } = cutPage(listed, KEYS_PER_PAGE, (key) => key.id);
  const created = options.created;
  const body = html`<h1>CI keys</h1>
<p class="lead">Credentials for CI pipelines: limited to projects and scopes, usable on the REST API only, revocable at any time.</p>
${flash(options.done)}${problem(options.error)}
${
  created
    ? html`<section class="secret-box" aria-labelledby="new-key-heading">
<h2 id="new-key-heading">Key "${created.key.name}" created</h2>
<p><strong>Copy it now: it is not shown again.</strong> Store it as a secret of your CI (e.g. <span class="mono">ARBITER_TOKEN</span>).</p>
<code id="new-key-secret">${created.secret}</code>
</section>`
    : ""
}
<section aria-labelledby="keys-heading"><h2 id="keys-heading">Keys of ${context.organizationName}</h2>
${
  keys.length === 0
    ? after === null
      ? emptyState("No CI keys yet", "Create one below and give it to your pipeline.")
      : emptyState("No older keys", "Every key of the organization is on the pages before this one.")
    : scrollTable(
        "CI keys",
        ["Key", "Projects", "Scopes", "Created", "Expires", "Status", "Action"],
        keys.map((k) => keyRow(context, k)),
      )
}${keysPager(after, nextAfter)}</section>
${createForm(context, offeredProjects(projects), options.values ?? EMPTY_FORM)}`;
  return consoleResponse(context.frame("CI keys", "keys"), body, options.status ?? (created ? 201 : 200));
}
