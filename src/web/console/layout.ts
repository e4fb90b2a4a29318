/**
 * The admin console's page frame: the shared base styles plus the console's own (navigation, badges, tables
 * that scroll inside their own container, empty states), the signed-in administrator and their organization,
 * and the security headers of every HTML page (no framing, no scripts, no caching).
 */
import type { Identity } from "../../auth/identity";
import { escapeHtml, html, htmlHeaders, STYLES, type SafeHtml } from "../../lib/html";

export type ConsoleSection = "overview" | "organization" | "clients" | "keys" | "projects" | "audit" | "usage";

const SECTIONS: ReadonlyArray<{ id: ConsoleSection; href: string; label: string }> = [
  { id: "overview", href: "/admin", label: "Overview" },
  { id: "organization", href: "/admin/organization", label: "Organization" },
  { id: "clients", href: "/admin/clients", label: "Connected clients" },
  { id: "keys", href: "/admin/keys", label: "CI keys" },
  { id: "projects", href: "/admin/projects", label: "Projects" },
  { id: "audit", href: "/admin/audit", label: "Audit trail" },
  { id: "usage", href: "/admin/usage", label: "Rate limits" },
];

const CONSOLE_STYLES = `
main.console{max-width:72rem}
header.top .where{color:#d5dae3}
header.top .who{margin-left:auto;color:#d5dae3;font-size:.9rem}
header.top .who a{color:#fff;font-weight:600;margin-left:.5rem}
.console-nav{background:#1b2029;border-top:1px solid #2c3340}
.console-nav ul{list-style:none;margin:0 auto;padding:0 .5rem;display:flex;flex-wrap:wrap;max-width:72rem}
.console-nav a{display:block;padding:.65rem .75rem;color:#e6e9ef;text-decoration:none;min-height:44px;line-height:1.6}
.console-nav a:hover,.console-nav a:focus{color:#fff;text-decoration:underline}
.console-nav a[aria-current=page]{color:#fff;font-weight:600;box-shadow:inset 0 -3px 0 #8fb0ff}
.lead{color:var(--muted);margin-top:-.25rem}
.badge{display:inline-block;padding:.05rem .55rem;border-radius:999px;font-size:.8rem;font-weight:600;border:1px solid;white-space:nowrap}
.badge.ok{background:#e7f6ec;color:#0f5c2e;border-color:#7dc495}
.badge.bad{background:#fdecec;color:#8a1c1c;border-color:#e09a9a}
.badge.warn{background:#fff4e0;color:#6b3f00;border-color:#e0b466}
.badge.neutral{background:#eef0f3;color:#363b44;border-color:#c3c9d2}
.table-wrap{overflow-x:auto;border:1px solid var(--line);border-radius:8px;background:var(--card);margin:.5rem 0 1rem}
.table-wrap:focus{outline:3px solid #1f4fd1;outline-offset:2px}
.table-wrap table{min-width:42rem}
.table-wrap th{background:#f0f2f5;font-size:.85rem;text-transform:uppercase;letter-spacing:.02em;color:#3b414b}
.table-wrap td,.table-wrap th{padding:.55rem .65rem}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem;overflow-wrap:normal;word-break:normal}
.ident{white-space:nowrap;overflow-wrap:normal;word-break:normal}
.scroll-hint{display:none;margin:-.6rem 0 1rem;font-size:.85rem;color:var(--muted)}
@media (max-width:48rem){.scroll-hint{display:block}}
.scroll-hint.always{display:block}
.table-wrap.compact table{min-width:0}
td.reason{min-width:14rem}
.event-meta{display:block;font-size:.85rem;color:var(--muted)}
pre.markdown{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f7f9;color:var(--fg);border:1px solid var(--line);max-height:32rem;overflow:auto}
.downloads{display:flex;flex-wrap:wrap;gap:.5rem 1rem;padding:0;list-style:none}
.rule-group{margin:1rem 0}
.rule-group h3{font-size:1rem;margin:.5rem 0;display:flex;gap:.5rem;align-items:baseline;flex-wrap:wrap}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:.5rem 0 1rem}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
.empty{border:1px dashed #aab1bc;border-radius:8px;padding:1.25rem;text-align:center;background:var(--card)}
.empty p{margin:.25rem 0;color:var(--muted)}
.empty strong{display:block}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));gap:1rem;margin:1rem 0}
.stat{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:1rem}
.stat .value{display:block;font-size:1.9rem;font-weight:700;line-height:1.2}
.stat a{font-weight:600}
.flash{border-left:4px solid #1a7f37;background:#e7f6ec;padding:.75rem 1rem;border-radius:6px;margin:1rem 0}
.problem{border-left:4px solid #b42318;background:#fdecec;padding:.75rem 1rem;border-radius:6px;margin:1rem 0}
.secret-box{border:2px solid #1a7f37;border-radius:10px;padding:1rem;background:#f3fbf5;margin:1rem 0}
.secret-box code{display:block;font-size:.95rem;padding:.6rem;background:#fff;border:1px solid #b7dcc2;margin:.5rem 0;user-select:all}
.form-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:.75rem 1rem;align-items:end}
.form-grid label,.field label{display:block;font-weight:600;margin-bottom:.25rem}
.field{margin:.75rem 0}
.hint{display:block;font-weight:400;color:var(--muted);font-size:.875rem}
input[type=date],input[type=datetime-local],input[type=search]{font:inherit;padding:.5rem;border:1px solid #8a919c;border-radius:6px;width:100%;min-height:44px}
label.check{display:flex;gap:.5rem;align-items:center;padding:.3rem 0}
label.check input{width:1.15rem;height:1.15rem;flex:none}
button.danger{color:#9b1c1c;border-color:#9b1c1c;background:#fff}
button.small{min-height:36px;padding:.3rem .8rem}
form.inline{display:inline;margin:0}
.pager{display:flex;gap:1rem;align-items:center;flex-wrap:wrap;margin:1rem 0}
.section-head{display:flex;justify-content:space-between;align-items:baseline;gap:1rem;flex-wrap:wrap}
`;

export interface ConsoleFrame {
  title: string;
  section?: ConsoleSection;
  admin: Identity;
  organizationName: string;
}

export function consoleDocument(frame: ConsoleFrame, body: SafeHtml): string {
  const nav = html`<nav class="console-nav" aria-label="Admin console"><ul>${SECTIONS.map(
    (s) => html`<li><a href="${s.href}"${s.id === frame.section ? html` aria-current="page"` : ""}>${s.label}</a></li>`,
  )}</ul></nav>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(frame.title)} · ${escapeHtml(frame.organizationName)} · Arbiter admin</title>
<style>${STYLES}${CONSOLE_STYLES}</style>
</head>
<body>
<header class="top">${html`<a href="/admin">Arbiter</a><span class="where">Admin console · ${frame.organizationName}</span><span class="who">${frame.admin.name} <a href="/signout">Sign out</a></span>`.value}</header>
${nav.value}
<main id="main" class="console">
${body.value}
</main>
</body>
</html>`;
}

export function consoleResponse(frame: ConsoleFrame, body: SafeHtml, status = 200): Response {
  return new Response(consoleDocument(frame, body), { status, headers: htmlHeaders() });
}
