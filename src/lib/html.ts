/** Server-rendered pages: escaping, one layout, security headers. Every interpolated value goes through `escapeHtml`. STYLES is shared with the admin console layout. */
import { visibleControls } from "./escape/controls";

/** HTML specials become character references; controls and bidi characters become visible (lib/escape/controls.ts). */
export function escapeHtml(value: unknown): string {
  return visibleControls(String(value), "keep").replace(/[&<>"'`=]/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A tagged template that escapes every interpolation unless it is already `SafeHtml`. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? "");
  });
  return new SafeHtml(out);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(value);
}

export const STYLES = `
:root{--fg:#15171a;--muted:#555b66;--bg:#f6f7f9;--card:#fff;--line:#d9dde3;--accent:#1f4fd1;--accent-fg:#fff;--warn-bg:#fff4e0;--warn-line:#c77700;--dev-bg:#ffe8e8;--dev-line:#b42318}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header.top{background:#11141a;color:#fff;padding:.75rem 1rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
header.top a{color:#fff;text-decoration:none;font-weight:600}
main{max-width:44rem;margin:1.5rem auto;padding:0 1rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:1.25rem;margin-bottom:1rem}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .75rem}
h2{font-size:1.15rem;margin:1.25rem 0 .5rem}
p,li{color:var(--fg)}
.muted{color:var(--muted)}
code{background:#eef0f3;padding:.1rem .3rem;border-radius:4px;word-break:break-all}
pre{background:#11141a;color:#f3f4f6;padding:.75rem;border-radius:8px;overflow-x:auto}
pre code{background:none;color:inherit;padding:0;border-radius:0;word-break:normal;white-space:pre}
pre:focus-visible{outline:3px solid #7aa2ff;outline-offset:2px}
.notice{border-left:4px solid var(--warn-line);background:var(--warn-bg);padding:.75rem 1rem;border-radius:6px;margin:1rem 0}
.dev{border-left:4px solid var(--dev-line);background:var(--dev-bg);padding:.75rem 1rem;border-radius:6px;margin:1rem 0;font-weight:600}
fieldset{border:1px solid var(--line);border-radius:8px;padding:.75rem 1rem;margin:1rem 0}
legend{font-weight:600;padding:0 .25rem}
label.scope{display:flex;gap:.6rem;align-items:flex-start;padding:.5rem 0;border-bottom:1px solid #eef0f3}
label.scope:last-child{border-bottom:0}
label.scope input{margin-top:.3rem;width:1.15rem;height:1.15rem;flex:none}
.scope-name{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9rem}
.badge-sensitive{display:inline-block;padding:0 .45rem;border-radius:999px;font-size:.75rem;font-weight:600;background:#fdecec;color:#8a1c1c;border:1px solid #e09a9a;white-space:nowrap}
.why{color:#8a1c1c;font-size:.875rem}
.hint{color:var(--muted);font-size:.875rem}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1rem}
button,.button{font:inherit;border-radius:8px;padding:.6rem 1.1rem;border:1px solid var(--line);background:#fff;color:var(--fg);cursor:pointer;min-height:44px}
button.primary,.button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-fg)}
select,input[type=text],input[type=email]{font:inherit;padding:.5rem;border:1px solid #8a919c;border-radius:6px;width:100%;min-height:44px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem;border-bottom:1px solid var(--line);vertical-align:top}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
`;

export function page(title: string, body: SafeHtml): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLES}</style>
</head>
<body>
<header class="top"><a href="/">Arbiter</a><span>Governed MCP server</span></header>
<main id="main">
${body.value}
</main>
</body>
</html>`;
}

/** Security headers for every HTML page: no framing, no sniffing, no inline scripts, no caching. */
export function htmlHeaders(extra?: HeadersInit): Headers {
  const headers = new Headers(extra);
  headers.set("Content-Type", "text/html; charset=utf-8");
  headers.set(
    "Content-Security-Policy",
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
  );
  headers.set("X-Frame-Options", "DENY");
  headers.set("X-Content-Type-Options", "nosniff");
  // same-origin, not no-referrer: with no-referrer browsers send `Origin: null` on our own form posts.
  headers.set("Referrer-Policy", "same-origin");
  headers.set("Cache-Control", "no-store");
  return headers;
}

export function htmlResponse(
  title: string,
  body: SafeHtml,
  init: { status?: number; headers?: HeadersInit } = {},
): Response {
  return new Response(page(title, body), { status: init.status ?? 200, headers: htmlHeaders(init.headers) });
}

export function errorPage(status: number, title: string, message: string, next?: SafeHtml): Response {
  return htmlResponse(title, html`<div class="card"><h1>${title}</h1><p>${message}</p>${next ?? ""}</div>`, { status });
}
