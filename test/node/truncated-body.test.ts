/**
 * A client that sends less than its Content-Length and goes away (issue 9, item 10), over real TCP against
 * wrangler dev: the Worker's body read then fails ("Network connection lost"). That must be answered as a
 * truncated body (400, audited as invalid input), never as a 500 logged as "api route threw" or "unhandled
 * error". Nobody reads the answer (the client is gone), so the test checks what the operator sees: the log and
 * the audit trail. The pool cannot produce this failure (test/worker/mcp/truncated-body.test.ts covers a body
 * that merely ends early).
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDev } from "../helpers/wrangler-dev";
import { obtainToken } from "../helpers/oauth-http";

let server: WranglerDev;
let mcp: string;
let rest: string;
let auditor: string;

beforeAll(async () => {
  server = await startWranglerDev({ vars: { ARBITER_DEV_SIGN_IN: "true" } });
  mcp = await obtainToken(server.url, { user: "ana", scope: "orders.read", resource: `${server.url}/mcp` });
  rest = await obtainToken(server.url, {
    user: "ana",
    scope: "orders.search contracts.read contracts.write",
    resource: `${server.url}/api`,
  });
  auditor = await obtainToken(server.url, { user: "ana", scope: "audit.read", resource: `${server.url}/api` });
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

/** Sends the head and 6 bytes of a body that declares 100, then drops the connection. */
function sendShortThenDrop(path: string, headers: string[], contentType = "application/json"): Promise<void> {
  return new Promise((done) => {
    const socket = connect(server.port, "127.0.0.1");
    socket.on("error", () => done());
    socket.on("close", () => done());
    const head = [
      `POST ${path} HTTP/1.1`,
      `Host: localhost:${server.port}`,
      "Content-Length: 100",
      `Content-Type: ${contentType}`,
      ...headers,
    ].join("\r\n");
    socket.write(`${head}\r\n\r\n{"a":1`);
    setTimeout(() => socket.destroy(), 1_000);
  });
}

async function eventually<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never saw ${what}; wrangler log tail:\n${server.logs().slice(-3000)}`);
}

const errorLines = () =>
  server
    .logs()
    .split("\n")
    .filter((line) => /"level":"error"|api route threw|unhandled error/.test(line));

describe("a body cut short by the client going away", () => {
  it("POST /mcp is handled as a truncated body: a warning, no error", async () => {
    await sendShortThenDrop("/mcp", [`Authorization: Bearer ${mcp}`, "Accept: application/json, text/event-stream"]);
    const line = await eventually(
      async () =>
        server
          .logs()
          .split("\n")
          .find((l) => l.includes("mcp request body truncated")),
      "the truncation warning",
    );
    expect(line).toContain('"receivedBytes":6');
    expect(line).toContain('"declaredBytes":100');
    expect(errorLines()).toEqual([]);
  });

  it.each([
    ["POST /api/v1/projects/:project/contracts", "/api/v1/projects/orders/contracts"],
    ["POST /api/chat", "/chat"],
  ])("%s is audited as invalid input (body_truncated), not as an error", async (target, path) => {
    await sendShortThenDrop(path, [`Authorization: Bearer ${rest}`]);
    const record = await eventually(async () => {
      const response = await fetch(`${server.url}/api/v1/audit/events?${new URLSearchParams({ target })}`, {
        headers: { Authorization: `Bearer ${auditor}` },
      });
      const { events } = (await response.json()) as { events: Array<{ outcome: string; reason: string }> };
      return events[0];
    }, `the audit record of ${target}`);
    expect(record).toMatchObject({ outcome: "invalid-input", reason: "body_truncated" });
    expect(errorLines()).toEqual([]);
  });

  it.each([
    ["the development sign-in form", "/signin/dev", false],
    ["the consent form", "/authorize", true],
  ])("%s is answered as an unreadable form, not an unhandled error", async (_what, path, signedIn) => {
    const form = "application/x-www-form-urlencoded";
    const headers = [`Origin: ${server.url}`];
    if (signedIn) {
      const signIn = await fetch(`${server.url}/signin/dev`, {
        method: "POST",
        redirect: "manual",
        headers: { Origin: server.url, "Content-Type": form },
        body: new URLSearchParams({ user: "ana", return: "/" }),
      });
      const cookie = signIn.headers
        .getSetCookie()
        .map((header) => header.split(";")[0])
        .join("; ");
      expect(cookie).not.toBe("");
      headers.push(`Cookie: ${cookie}`);
    }
    const before = server.logs().length;
    await sendShortThenDrop(path, headers, form);
    await new Promise((r) => setTimeout(r, 1_500));
    // wrangler's own proxy reports the dropped connection: the request did reach the Worker.
    expect(server.logs().slice(before)).toContain(`${path} (failed after 1 attempt): Network connection lost`);
    expect(errorLines()).toEqual([]);
  });
});
