/**
 * `npm run bench:subscribers`: what a project's subscribed MCP sessions cost CI's snapshot upload. Starts one
 * `wrangler dev` of this Worker (development sign-in), stores a one-operation contract, then for each size in turn
 * opens 2025-11-25 sessions that subscribe to the project's latest verdict (a new OAuth client every 100 sessions,
 * since each client has its own quota), and times ROUNDS small snapshot uploads of that project with a REST token,
 * from the request sent to the answer read. Uploads are spaced (--gap ms) so each starts after the previous one's
 * announcements. Prints the median and the range per size, and each size's median against no subscribers.
 *
 * Options: --sizes 0,100,300 (subscribed sessions), --rounds 7, --gap 3000.
 */
import { obtainToken } from "../test/helpers/oauth-http";
import { startWranglerDev } from "../test/helpers/wrangler-dev";
import { small } from "./rest-upload";

function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : (process.argv[index + 1] ?? fallback);
}
const SIZES = argument("sizes", "0,100,300").split(",").map(Number);
const ROUNDS = Number(argument("rounds", "7"));
const GAP_MS = Number(argument("gap", "3000"));
const PROJECT = "followed";
const LATEST = `spec://projects/${PROJECT}/verdicts/latest`;

/** The project's document (new bytes each round: the response type alternates). */
const documentOf = small;

const worker = await startWranglerDev({ vars: { ARBITER_DEV_SIGN_IN: "true" } });
const base = worker.url;
try {
  const rest = await obtainToken(base, {
    user: "ana",
    scope: "contracts.read contracts.write snapshots.write",
    resource: `${base}/api`,
  });
  const api = async (path: string, body: string) => {
    const answer = await fetch(`${base}/api/v1/projects/${PROJECT}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${rest}`, "Content-Type": "application/json" },
      body,
    });
    await answer.text();
    if (answer.status !== 201) throw new Error(`POST ${path}: ${answer.status}`);
  };
  await api("/contracts", documentOf("Followed", "string"));

  let mcpToken = "";
  const mcp = async (message: object, session?: string) => {
    const answer = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${mcpToken}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
        ...(session ? { "Mcp-Session-Id": session } : {}),
      },
      body: JSON.stringify(message),
    });
    return { answer, text: await answer.text() };
  };
  const subscribeOne = async () => {
    const init = await mcp({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
    });
    const session = init.answer.headers.get("mcp-session-id");
    if (!session) throw new Error(`initialize: ${init.answer.status}`);
    await mcp({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
    const subscribed = await mcp(
      { jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: LATEST } },
      session,
    );
    if (!subscribed.text.includes('"result"')) throw new Error(`subscribe: ${subscribed.text.slice(0, 200)}`);
  };

  let subscribed = 0;
  let round = 0;
  const medians = new Map<number, number>();
  for (const size of SIZES) {
    while (subscribed < size) {
      if (subscribed % 100 === 0)
        mcpToken = await obtainToken(base, { user: "ana", scope: "contracts.read", resource: `${base}/mcp` });
      const batch = Math.min(10, size - subscribed, 100 - (subscribed % 100));
      await Promise.all(Array.from({ length: batch }, subscribeOne));
      subscribed += batch;
    }
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      await new Promise((done) => setTimeout(done, size === 0 ? 500 : GAP_MS));
      const start = performance.now();
      await api(`/snapshots?commit=bench${round++}`, documentOf("Followed", i % 2 ? "boolean" : "integer"));
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    medians.set(size, median);
    const against = medians.get(0);
    console.log(
      `${size} subscribed sessions: upload p50 ${median.toFixed(0)} ms (range ${times[0]!.toFixed(0)}-${times.at(-1)!.toFixed(0)})` +
        (against && size > 0 ? `, ${(median / against).toFixed(2)}x no subscribers` : ""),
    );
  }
} finally {
  await worker.stop();
}
