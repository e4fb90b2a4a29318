/** Small building blocks of the console pages. Everything goes through the escaping `html` template. */
import { errorPage, html, type SafeHtml } from "../../lib/html";
import { CSRF_FIELD } from "./csrf";

export type BadgeTone = "ok" | "bad" | "warn" | "neutral";

export function badge(tone: BadgeTone, text: string): SafeHtml {
  return html`<span class="badge ${tone}">${text}</span>`;
}

export function emptyState(title: string, text: string | SafeHtml): SafeHtml {
  return html`<div class="empty"><strong>${title}</strong><p>${text}</p></div>`;
}

function slug(label: string): string {
  return (
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "table"
  );
}

/**
 * A table that scrolls inside its own labelled, focusable region, so the page never scrolls sideways at
 * 375 px. The hint under it (shown on narrow screens, where the table is wider than the screen, and at every
 * width for a `wide` table such as the audit trail's) says so; the region points at it with aria-describedby.
 */
export function scrollTable(
  label: string,
  head: readonly (string | SafeHtml)[],
  rows: SafeHtml[],
  options: { compact?: boolean; wide?: boolean } = {},
): SafeHtml {
  const hint = `${slug(label)}-scroll-hint`;
  return html`<div class="table-wrap${options.compact ? " compact" : ""}" role="region" aria-label="${label}" aria-describedby="${hint}" tabindex="0"><table>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows}</tbody>
</table></div>
<p class="scroll-hint${options.wide ? " always" : ""}" id="${hint}"><span aria-hidden="true">↔ </span>Swipe or scroll the table sideways to see every column.</p>`;
}

/**
 * An identifier (scope, rule id, event name, client id, commit, time): never broken across lines. A table
 * that gets wider than the screen scrolls in its region instead.
 */
export function ident(value: string | number, extraClass = ""): SafeHtml {
  return html`<span class="ident${extraClass ? ` ${extraClass}` : ""}">${String(value)}</span>`;
}

/** Monospace identifier, as most ids are shown. */
export function code(value: string | number): SafeHtml {
  return ident(value, "mono");
}

/**
 * Free text cut to about `max` characters at the last word boundary, with an ellipsis; the full text is in
 * the title attribute (and so on hover and for assistive technology that reads titles).
 */
export function shortened(text: string, max = 90): SafeHtml {
  const chars = [...text];
  if (chars.length <= max) return html`${text}`;
  const head = chars.slice(0, max).join("");
  const cut = head.replace(/\s+\S*$/, "");
  const shown = (cut.length >= max / 2 ? cut : head).replace(/[\s,.;:]+$/, "");
  return html`<span title="${text}">${shown}\u2026</span>`;
}

/** An ISO time shown as `YYYY-MM-DD HH:MM UTC` on one line, machine-readable in `datetime`. */
export function time(iso: string | null | undefined): SafeHtml {
  if (!iso) return html`<span class="muted">never</span>`;
  const parsed = new Date(iso);
  if (Number.isNaN(parsed.getTime())) return html`${iso}`;
  return html`<time class="ident" datetime="${parsed.toISOString()}">${parsed.toISOString().slice(0, 16).replace("T", " ")} UTC</time>`;
}

export function csrfInput(token: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

export function flash(message: string | undefined): SafeHtml {
  return message ? html`<p class="flash" role="status">${message}</p>` : html``;
}

export function problem(message: string | undefined): SafeHtml {
  return message ? html`<p class="problem" role="alert">${message}</p>` : html``;
}

/** A console page or download that does not exist in the administrator's organization. */
export function notFound(message: string): Response {
  return errorPage(404, "Not found", message, html`<p><a href="/admin/projects">Projects</a></p>`);
}
