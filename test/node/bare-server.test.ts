// The bench baseline (bench/bare-server/): the bare MCP server bench:mcp and bench:coldstart compare Arbiter with
// really answers a tools/call in both eras (bench_bare, and bench_recorded after storing its record), behind OAuth (a
// call without a token is refused), so a broken baseline fails here rather than as a benchmark row of failed calls.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDev } from "../helpers/wrangler-dev";
import { obtainBareToken } from "../../bench/bare-server/token";
import { openSession, SESSION_ERA, STATELESS_ERA } from "../../bench/mcp-client";

describe("bench/bare-server", () => {
  let dev: WranglerDev;
  let token: string;
  beforeAll(async () => {
    dev = await startWranglerDev({ config: "bench/bare-server/wrangler.toml" });
    token = await obtainBareToken(dev.url);
  });
  afterAll(() => dev?.stop());

  it("refuses /mcp without a token", async () => {
    const response = await fetch(`${dev.url}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(401);
  });

  it.each([SESSION_ERA, STATELESS_ERA] as const)("answers bench_bare in protocol %s with a token", async (era) => {
    const session = await openSession(dev.url, token, era);
    await expect(session.call("bench_bare", 1)).resolves.toBeUndefined();
    // The floor tool stores its record in BareRecordStore first: a missing binding or class would fail the call.
    await expect(session.call("bench_recorded", 3)).resolves.toBeUndefined();
    await expect(session.call("no_such_tool", 2)).rejects.toThrow(/no_such_tool/);
  });
});
