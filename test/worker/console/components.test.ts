// The console's table building blocks: identifiers that never break, reasons cut at a word with the full text
// in a title, and tables in a labelled, focusable scroll region with a visible hint.
import { describe, expect, it } from "vitest";
import { code, ident, scrollTable, shortened, time } from "../../../src/web/console/components";
import { html } from "../../../src/lib/html";

describe("console table components", () => {
  it("cuts long free text at a word boundary with an ellipsis and keeps the full text in the title", () => {
    const reason =
      "grant 8f1c2a of mia revoked by an administrator (admin console) after the laptop was reported stolen";
    const shown = shortened(reason, 60).value;
    expect(shown).toBe(
      `<span title="${reason.replace(/[&<>"'`=]/g, (c) => `&#${c.charCodeAt(0)};`)}">grant 8f1c2a of mia revoked by an administrator (admin\u2026</span>`,
    );
    expect(shortened("short reason", 60).value).toBe("short reason");
  });

  it("marks identifiers and times so they stay on one line", () => {
    expect(ident("snapshots.write").value).toBe('<span class="ident">snapshots.write</span>');
    expect(code("ci_key_created").value).toBe('<span class="ident mono">ci_key_created</span>');
    expect(time("2026-12-01T08:00:00Z").value).toContain(
      '<time class="ident" datetime="2026-12-01T08:00:00.000Z">2026-12-01 08:00 UTC</time>',
    );
  });

  it("puts a table in a labelled, focusable region that points at its scroll hint", () => {
    const table = scrollTable("Audit events", ["Time"], [html`<tr><td>x</td></tr>`]).value;
    expect(table).toContain(
      'role="region" aria-label="Audit events" aria-describedby="audit-events-scroll-hint" tabindex="0"',
    );
    expect(table).toContain('<p class="scroll-hint" id="audit-events-scroll-hint">');
  });
});
