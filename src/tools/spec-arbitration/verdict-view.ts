/**
 * The verdict as an MCP App (the MCP Apps extension, 2026-01-26): check_api_conformance, check_api_draft and
 * compare_contract_versions name this `ui://` resource in their listing's `_meta.ui.resourceUri`, and a host that
 * renders apps shows it in a sandboxed iframe with the tool's result (findings placed on their line when the tool
 * was given the document as text: check_api_draft's `_meta["arbiter/lines"]`); other hosts keep the text and structured content,
 * which do not change. The view is one self-contained HTML document: its script speaks the extension's postMessage
 * protocol to the host (ui/initialize, then it receives ui/notifications/tool-result), builds the page with DOM
 * methods and textContent only (document text is never parsed as HTML), makes no request of its own (its CSP allows
 * no connection, image, font or frame source; its resource declares no domain), and opens the console link through
 * the host (ui/open-link). It shows only the tool result the host hands it: what the caller's scopes allowed the tool
 * to answer.
 */
import { lazyLocator } from "../../engine";
import type { Violation } from "../../engine";
import type { ResourceContents } from "../../mcp/context";

export const VERDICT_VIEW_URI = "ui://arbiter/verdict-view.html";
/** The MCP Apps resource type (ext-apps RESOURCE_MIME_TYPE). */
export const APP_MIME_TYPE = "text/html;profile=mcp-app";
/** The extension version the view speaks. */
const APPS_PROTOCOL_VERSION = "2026-01-26";

/** The tool listing's `_meta` for a tool shown with the view (the legacy key too, for hosts from before `ui`). */
export const VERDICT_VIEW_TOOL_META = { ui: { resourceUri: VERDICT_VIEW_URI }, "ui/resourceUri": VERDICT_VIEW_URI };

/** The resource's `_meta.ui`: no network domain of any kind, and a border from the host. */
export const VERDICT_VIEW_RESOURCE_META = {
  ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [] }, prefersBorder: true },
};

/** Where the view finds the console page of what it shows (a tool result's `_meta`). */
export const CONSOLE_URL_META_KEY = "arbiter/consoleUrl";
/** Where it finds each finding's line in the document the tool was given (location -> line). */
export const LINES_META_KEY = "arbiter/lines";
/** Findings located in a draft: the view lists about as many; locating costs a second parse of the document. */
const MAX_LOCATED = 200;

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #57606a; --bg: #ffffff; --line: #d0d7de;
  --bad: #a40e26; --bad-bg: #ffebe9; --ok: #116329; --ok-bg: #dafbe1; --warn: #7d4e00; --warn-bg: #fff8c5;
  --info-bg: #ddf4ff; --info: #0a3069; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9da7b3; --bg: #0d1117; --line: #30363d;
  --bad: #ffa198; --bad-bg: #3d1117; --ok: #7ee787; --ok-bg: #12261e; --warn: #e3b341; --warn-bg: #2e2410;
  --info-bg: #0c2d6b; --info: #a5d6ff; } }
[data-theme="light"] { color-scheme: light; } [data-theme="dark"] { color-scheme: dark; }
* { box-sizing: border-box; }
body { margin: 0; padding: 12px 14px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--fg); background: var(--bg); overflow-wrap: anywhere; }
h1 { font-size: 1.15rem; margin: 0 0 4px; } h2 { font-size: 1rem; margin: 16px 0 6px; }
h3 { font-size: 0.95rem; margin: 10px 0 4px; font-weight: 600; }
p { margin: 4px 0; } .muted { color: var(--muted); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-weight: 600; font-size: 0.85rem; }
.bad { color: var(--bad); background: var(--bad-bg); } .ok { color: var(--ok); background: var(--ok-bg); }
.warn { color: var(--warn); background: var(--warn-bg); } .info { color: var(--info); background: var(--info-bg); }
.counts { display: flex; flex-wrap: wrap; gap: 6px; margin: 8px 0; padding: 0; list-style: none; }
ul.findings { list-style: none; padding: 0; margin: 0; }
ul.findings li { border-top: 1px solid var(--line); padding: 6px 0; }
code { font: 0.85rem ui-monospace, SFMono-Regular, Menlo, monospace; overflow-wrap: anywhere; }
.note { font-size: 0.85rem; color: var(--muted); margin-top: 2px; }
button.link { font: inherit; color: inherit; background: none; border: 1px solid var(--line); border-radius: 6px;
  padding: 4px 10px; cursor: pointer; }
button.link:focus-visible { outline: 2px solid var(--info); outline-offset: 2px; }
`;

/**
 * The view's script. It runs inside the host's sandboxed iframe: every message it takes must come from the parent
 * window, and it never writes markup from data (createElement and textContent only).
 */
const SCRIPT = `
(() => {
  const SEVERITIES = ["error", "accepted", "warning", "info"];
  const TONE = { error: "bad", accepted: "info", warning: "warn", info: "info" };
  let nextId = 1;
  const pending = new Map();
  const send = (message) => window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    send({ id, method, params });
  });
  const el = (tag, attributes, ...children) => {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
    for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    return node;
  };
  const root = document.getElementById("view");
  const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");

  function usageText(v) {
    const u = v.usage;
    if (!u) return "";
    if (u.exchanges === 0) return "Never seen in the recorded traffic of the last " + u.days + " days.";
    let text = plural(u.exchanges, "recorded exchange") + " of this operation in the last " + u.days + " days";
    if (u.touched) text += ", " + u.touched.count + " of them " + u.touched.what;
    return text + ".";
  }

  let lines = {};

  function finding(v) {
    const hash = v.location.indexOf("#");
    const line = Object.prototype.hasOwnProperty.call(lines, v.location) ? lines[v.location] : undefined;
    const item = el("li", {},
      el("span", { class: "badge " + (TONE[v.severity] || "info") }, v.severity), " ",
      el("code", {}, v.rule), " ",
      el("code", { class: "muted" }, hash < 0 ? v.location : v.location.slice(hash)),
      typeof line === "number" ? el("span", { class: "muted" }, " line " + line) : "",
      el("p", {}, v.message));
    const usage = usageText(v);
    if (usage) item.append(el("p", { class: "note" }, "Usage: " + usage));
    if (v.acceptance) item.append(el("p", { class: "note" }, "Accepted by " + v.acceptance.owner + " until " +
      v.acceptance.expiresAt.slice(0, 10) + ": " + v.acceptance.reason + " (" + v.acceptance.id + ")."));
    return item;
  }

  function render(result) {
    root.replaceChildren();
    const data = result && result.structuredContent;
    if (!data || typeof data.approved !== "boolean") {
      root.append(el("p", {}, (result && result.content && result.content[0] && result.content[0].text) ||
        "This result has no verdict to show."));
      return resize();
    }
    const violations = Array.isArray(data.violations) ? data.violations : [];
    const located = result._meta && result._meta["arbiter/lines"];
    lines = located && typeof located === "object" ? located : {};
    const summary = Array.isArray(data.summary) ? data.summary : [];
    const counts = { error: 0, accepted: 0, warning: 0, info: 0 };
    for (const entry of summary) if (entry.severity in counts) counts[entry.severity] += entry.count;
    const subject = data.snapshot ? "Snapshot " + data.snapshot.number + " (commit " + data.snapshot.commit + ")" :
      data.from ? "Contract v" + data.from.version + " to " + (data.to && data.to.version != null ? "v" + data.to.version : "the edited contract") :
      "Draft";
    root.append(el("h1", {}, "Arbiter verdict: " + (data.project || "")),
      el("p", {}, el("span", { class: "badge " + (data.approved ? "ok" : "bad") }, data.approved ? "Approved" : "Rejected"),
        " ", el("span", { class: "muted" }, subject + (data.contract ? " against contract v" + data.contract.version : ""))));
    const list = el("ul", { class: "counts", "aria-label": "Findings by severity" });
    for (const severity of SEVERITIES)
      list.append(el("li", {}, el("span", { class: "badge " + TONE[severity] }, counts[severity] + " " + severity)));
    root.append(list);
    if (violations.length === 0) root.append(el("p", {}, "No findings."));
    const byOperation = new Map();
    for (const v of violations) {
      const hash = v.location.indexOf("#");
      const operation = hash < 0 ? (v.location.startsWith("#") ? "Whole document" : v.location) : (hash === 0 ? "Whole document" : v.location.slice(0, hash));
      if (!byOperation.has(operation)) byOperation.set(operation, new Map());
      const rules = byOperation.get(operation);
      if (!rules.has(v.rule)) rules.set(v.rule, []);
      rules.get(v.rule).push(v);
    }
    for (const [operation, rules] of byOperation) {
      const section = el("section", {}, el("h2", {}, operation));
      for (const [rule, items] of rules) {
        section.append(el("h3", {}, rule + " (" + items.length + ")"));
        section.append(el("ul", { class: "findings" }, ...items.map(finding)));
      }
      root.append(section);
    }
    const omitted = data.omittedViolations || 0;
    if (omitted > 0) root.append(el("p", { class: "muted" }, plural(omitted, "more finding") + " are counted but not listed here."));
    const link = result._meta && result._meta["arbiter/consoleUrl"];
    if (typeof link === "string" && /^https?:\\/\\//.test(link)) {
      const button = el("button", { class: "link", type: "button" }, "Open in the Arbiter console");
      button.addEventListener("click", () => request("ui/open-link", { url: link }).catch(() => {}));
      root.append(el("p", {}, button));
    }
    resize();
  }

  function resize() {
    requestAnimationFrame(() => send({ method: "ui/notifications/size-changed",
      params: { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight } }));
  }

  function applyContext(context) {
    if (context && (context.theme === "light" || context.theme === "dark")) document.documentElement.dataset.theme = context.theme;
  }

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.method === undefined && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      return message.error ? reject(message.error) : resolve(message.result);
    }
    if (message.method === "ui/notifications/tool-result") return render(message.params);
    if (message.method === "ui/notifications/host-context-changed") return applyContext(message.params);
    if (message.id !== undefined && (message.method === "ui/resource-teardown" || message.method === "ping"))
      return send({ id: message.id, result: {} });
    if (message.id !== undefined) send({ id: message.id, error: { code: -32601, message: "Method not found" } });
  });

  request("ui/initialize", {
    appInfo: { name: "arbiter-verdict", version: "1" },
    appCapabilities: {},
    protocolVersion: "${APPS_PROTOCOL_VERSION}",
  }).then((result) => {
    applyContext(result && result.hostContext);
    send({ method: "ui/notifications/initialized", params: {} });
  });
})();
`;

/** The view's document; `nonce` admits its one inline script under its own CSP. */
export function verdictViewHtml(nonce: string): string {
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    "style-src 'unsafe-inline'",
    "connect-src 'none'",
    "img-src 'none'",
    "frame-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Arbiter verdict</title>
<style>${STYLE}</style>
</head>
<body>
<main id="view" aria-label="Arbiter verdict" aria-live="polite"><p>Waiting for the verdict…</p></main>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>
`;
}

/** A tool result's `_meta` naming the console page of what it shows (`suffix` under the project's page). */
export function consoleLinkMeta(publicUrl: string, project: string, suffix = ""): Record<string, string> {
  const base = publicUrl.replace(/\/+$/, "");
  return { [CONSOLE_URL_META_KEY]: `${base}/admin/projects/${encodeURIComponent(project)}${suffix}` };
}

/** A tool result's `_meta` with the line of each listed finding in `bytes` (the document as the caller sent it). */
export function linesMeta(violations: readonly Violation[], bytes: Uint8Array): Record<string, Record<string, number>> {
  if (violations.length === 0) return {};
  const locate = lazyLocator(bytes);
  const lines: Record<string, number> = {};
  for (const violation of violations.slice(0, MAX_LOCATED)) {
    const region = locate(violation.location);
    if (region) lines[violation.location] = region.startLine;
  }
  return Object.keys(lines).length === 0 ? {} : { [LINES_META_KEY]: lines };
}

/** The resource's contents: a fresh nonce per read. */
export function verdictViewContents(): ResourceContents {
  return {
    mimeType: APP_MIME_TYPE,
    text: verdictViewHtml(crypto.randomUUID().replace(/-/g, "")),
    meta: VERDICT_VIEW_RESOURCE_META,
  };
}
