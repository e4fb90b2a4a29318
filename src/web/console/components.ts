/** Small building blocks of the console pages. Everything goes through the escaping `html` template. */
import { html, type SafeHtml } from "../html";
import { CSRF_FIELD } from "./csrf";

export type BadgeTone = "ok" | "bad" | "warn" | "neutral";

export function badge(tone: BadgeTone, text: string): SafeHtml {
  return html`<span class="badge ${tone}">${text}</span>`;
}

export function emptyState(title: string, text: string | SafeHtml): SafeHtml {
  return html`<div class="empty"><strong>${title}</strong><p>${text}</p></div>`;
}

/** A table that scrolls inside its own focusable region, so the page never scrolls sideways at 375 px. */
export function scrollTable(label: string, head: readonly string[], rows: SafeHtml[]): SafeHtml {
  return html`<div class="table-wrap" role="region" aria-label="${label}" tabindex="0"><table>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
}

/** An ISO time shown as `YYYY-MM-DD HH:MM UTC`, machine-readable in `datetime`. */
export function time(iso: string | null | undefined): SafeHtml {
  if (!iso) return html`<span class="muted">never</span>`;
  const parsed = new Date(iso);
  if (Number.isNaN(parsed.getTime())) return html`${iso}`;
  return html`<time datetime="${parsed.toISOString()}">${parsed.toISOString().slice(0, 16).replace("T", " ")} UTC</time>`;
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
