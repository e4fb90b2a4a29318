/** The line a sign-in page shows about the application that asked (see requesting-app.ts). */
import { html, type SafeHtml } from "../lib/html";
import type { RequestingApp } from "./requesting-app";

export function requestingAppNote(app: RequestingApp | undefined): SafeHtml {
  if (!app) return html``;
  return html`<p id="requesting-app">Sign in to continue to <strong>${app.name}</strong>${
    app.verifiedDomain
      ? html`, published by <strong>${app.verifiedDomain}</strong>`
      : html` (a name the app chose for itself, not verified)`
  }, which asks to use Arbiter for you. Nothing is granted yet: you will see what it asks for next.</p>`;
}
