// The overview's picture of tool activity: real MCP tool calls and refusals counted per tool and per day over
// the last 7 UTC days, drawn as an SVG with a title, a description and a table of the same numbers; audit
// targets escaped; and a bounded read whose cap the page states when it is hit.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../../../src/audit/record";
import { auditTrailIn } from "../../../src/audit/trail";
import { appendOne, auditRecord, initializeSession, obtainTokens, rpc } from "../helpers";
import { signedIn, visibleText } from "./console-helpers";

let nextId = 500;
async function callTool(token: string, session: string, name: string, args: Record<string, unknown> = {}) {
  const reply = await rpc(token, session, "tools/call", { name, arguments: args }, nextId++);
  if (!reply.result) throw new Error(`tools/call ${name} failed: ${JSON.stringify(reply.error)}`);
  return reply.result as { isError?: boolean; content: Array<{ text: string }> };
}

/** Sessions answer before their audit record is stored: wait until `count` tool records have landed. */
async function toolRecordsLanded(organizationId: string, count: number): Promise<void> {
  const store = auditTrailIn(env.AUDIT_LOG)(organizationId);
  for (let attempt = 0; attempt < 150; attempt++) {
    if ((await store.query(organizationId, { kind: "tool", limit: 100 })).events.length >= count) return;
    await new Promise((done) => setTimeout(done, 20));
  }
  throw new Error(`fewer than ${count} tool records in ${organizationId}'s audit trail`);
}

function record(organizationId: string, i: number, fields: Partial<AuditRecord>): AuditRecord {
  return auditRecord(organizationId, { correlationId: `chart-${organizationId}-${i}`, userId: "dev", ...fields });
}

const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The <figure> of the tool-activity chart in a page. */
function chartOf(page: string): string {
  const start = page.indexOf('<figure class="chart"');
  expect(start, "the overview has a chart").toBeGreaterThan(-1);
  return page.slice(start, page.indexOf("</figure>", start) + "</figure>".length);
}

describe("overview tool-activity chart", () => {
  it("counts real tool calls per tool and day, and refusals, with a title, description and table; names escaped", async () => {
    // A member's client without audit.read: two whoami calls succeed, audit_events_list is refused for its
    // scope, and a call with bad arguments is invalid input.
    const { tokens } = await obtainTokens({ user: "dev", scope: "orders.read contracts.read" });
    const session = await initializeSession(tokens.access_token);
    expect((await callTool(tokens.access_token, session, "whoami")).isError).toBeFalsy();
    expect((await callTool(tokens.access_token, session, "whoami")).isError).toBeFalsy();
    const refused = await rpc(
      tokens.access_token,
      session,
      "tools/call",
      { name: "audit_events_list", arguments: { limit: 1 } },
      nextId++,
    );
    expect(refused.error?.data?.missingScopes).toEqual(["audit.read"]);
    expect((await callTool(tokens.access_token, session, "whoami", { unexpected: true })).isError).toBe(true);
    await toolRecordsLanded("acme", 4);

    // A stored target that is markup (the store keeps whatever a writer gave it), three days ago, and a call
    // eight days ago that is outside the window.
    const store = auditTrailIn(env.AUDIT_LOG)("acme");
    const threeDaysAgo = Date.now() - 3 * DAY;
    const hostile = `<img src=x onerror="alert(1)">&tool`;
    expect(
      await appendOne(
        store,
        record("acme", 1, { time: new Date(threeDaysAgo).toISOString(), target: hostile, outcome: "rate-limited" }),
      ),
    ).toEqual({ stored: true });
    expect(
      await appendOne(
        store,
        record("acme", 2, { time: new Date(Date.now() - 8 * DAY).toISOString(), target: "long_ago_tool" }),
      ),
    ).toEqual({ stored: true });

    const page = (await (await signedIn("ana")).get("/admin")).text;
    const chart = chartOf(page);
    expect(chart).toMatch(/<svg role="img" aria-labelledby="(chart-\d+)-t \1-d"/);
    expect(chart).toContain(">Tool calls and refusals per day</title>");
    const today = dayOf(Date.now());
    const first = dayOf(Date.now() - 6 * DAY);
    const description = /<desc id="[^"]+">([^<]*)<\/desc>/.exec(chart)![1]!;
    expect(description).toContain(`${first} to ${today} (UTC): 5 tool calls of 3 tools, 3 refused or failed`);
    expect(description).toContain("whoami: 3");
    expect(description).toContain("audit_events_list: 1");
    expect(description).toMatch(/rejected-by-policy: 1/);
    expect(description).toMatch(/invalid-input: 1/);
    expect(description).toMatch(/rate-limited: 1/);
    // One bar per tool and day, on the right day: whoami twice ok and once refused today.
    expect(chart).toContain(
      `<title>whoami, ${["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][new Date().getUTCDay()]} ${today}: 3 calls</title>`,
    );
    expect(chart).toMatch(new RegExp(`<title>refused or failed, \\w{3} ${dayOf(threeDaysAgo)}: 1 call not ok</title>`));
    expect(chart).toMatch(new RegExp(`<title>refused or failed, \\w{3} ${today}: 2 calls not ok</title>`));
    expect(chart).not.toContain("long_ago_tool");

    // Escaped everywhere: no markup from the record reaches the page.
    expect(page).not.toContain("<img src=x");
    expect(chart).toContain("&#60;img src&#61;x onerror&#61;&#34;alert(1)&#34;&#62;&#38;tool: 1<title>");

    // The same numbers as a table: a row per tool with a count per day and a total, and the refusals row.
    const table = page.slice(
      page.indexOf('aria-label="Tool calls per day"'),
      page.indexOf("</table>", page.indexOf('aria-label="Tool calls per day"')),
    );
    const rows = table
      .split("<tr>")
      .slice(2)
      .map((row) => visibleText(row).trim());
    expect(rows[0]).toBe("whoami 0 0 0 0 0 0 3 3");
    expect(rows).toContain("refused or failed 0 0 0 1 0 0 2 3");
    expect(rows).toContain(`${hostile} 0 0 0 1 0 0 0 1`);
    expect(page).not.toContain("More than 500 tool calls");
  });

  it("reads a bounded number of records and says so when more matched", async () => {
    const gus = await signedIn("gus");
    expect(visibleText((await gus.get("/admin")).text)).toContain("No tool calls in the last 7 days");
    const now = Date.now();
    const deliveries = Array.from({ length: 510 }, (_, i) => ({
      deliveryId: `chart-delivery-${i}`,
      // Oldest first, one a second before now: the 10 oldest fall outside the 500 the page reads.
      record: record("globex", i, {
        userId: "gus",
        time: new Date(now - (510 - i) * 1000).toISOString(),
        target: i % 2 ? "whoami" : "orders_search",
      }),
    }));
    const answers = await auditTrailIn(env.AUDIT_LOG)("globex").appendBatch(deliveries);
    expect(answers.every((a) => a.stored)).toBe(true);

    const page = (await gus.get("/admin")).text;
    const text = visibleText(page);
    expect(text).toMatch(
      /More than 500 tool calls in 7 days: only the newest 500 are counted, those since \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
    );
    expect(/<desc id="[^"]+">([^<]*)<\/desc>/.exec(chartOf(page))![1]).toContain(
      ": 500 tool calls of 2 tools, 0 refused or failed",
    );
  });
});
