/**
 * axe-core over a page the Worker serves, run in the page itself.
 *
 * @axe-core/playwright's default analysis opens a new page for every check, to merge the results of each frame there:
 * about half of a one-second check. The pages checked with this helper (the console, sign-in and consent pages) have
 * no frames, so running axe in the page ("legacy mode") applies the same rules to the same document; the helper
 * refuses a page with frames. A page that embeds frames (the MCP App host in verdict-app.test.ts) keeps the default.
 */
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "playwright-core";

type Violation = Awaited<ReturnType<AxeBuilder["analyze"]>>["violations"][number];

/** The serious and critical violations axe finds on `page`, a page without frames. */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  const frames = page.frames().length;
  if (frames !== 1) throw new Error(`seriousViolations checks pages without frames; this one has ${frames - 1}`);
  const results = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
  return results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}
