/**
 * The real MCP Inspector CLI (2.12) through its own OAuth against the shared `wrangler dev`: a person (scripted
 * over HTTP) signs in and approves whatever authorization URL the CLI prints, and answers its step-up question.
 * One run: the CLI's first authorization (the baseline scopes), then tools/call orders_search, which needs
 * orders.search: the 403 challenge, the CLI's step-up with every scope of the challenge, the retried call answers. The CLI runs with a registered client (`--client-id`), the path on which it steps up by itself (docs/clients.md
 * "Scopes and step-up" says why its DCR path cannot).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveAuthorization, registerClient } from "../helpers/oauth-http";
import { sharedWranglerDev } from "../helpers/shared-wrangler-dev";
import { freePort, type WranglerDev } from "../helpers/wrangler-dev";

let server: WranglerDev;
let home: string;
beforeAll(async () => {
  server = await sharedWranglerDev();
  home = mkdtempSync(join(tmpdir(), "arbiter-inspector-"));
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  authorizationUrls: URL[];
}

/** Runs the Inspector CLI; every "Please navigate to" URL is approved as `user`, every step-up question answered yes. */
function inspector(args: string[], user: string): Promise<CliRun> {
  return new Promise((done, fail) => {
    const child = spawn(
      "npx",
      ["--no-install", "@modelcontextprotocol/inspector", "--cli", `${server.url}/mcp`, "--transport", "http", ...args],
      {
        env: {
          ...process.env,
          HOME: home,
          MCP_AUTO_OPEN_ENABLED: "true",
          MCP_INSPECTOR_SECRET_STORE: "file",
          BROWSER: "true",
        },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    const run: CliRun = { code: null, stdout: "", stderr: "", authorizationUrls: [] };
    const timer = setTimeout(() => child.kill("SIGTERM"), 60_000);
    child.stdout.on("data", (chunk) => (run.stdout += chunk));
    child.stderr.on("data", async (chunk: Buffer) => {
      const text = chunk.toString();
      run.stderr += text;
      if (/\[y\/N\]/.test(text)) child.stdin.write("y\n");
      const url = /navigate to: (\S+)/.exec(text)?.[1];
      if (!url) return;
      run.authorizationUrls.push(new URL(url));
      try {
        const callback = await approveAuthorization(server.url, user, url);
        if (callback) await fetch(callback);
      } catch (error) {
        fail(error);
      }
    });
    child.on("error", fail);
    child.on("exit", (code) => {
      clearTimeout(timer);
      run.code = code;
      done(run);
    });
  });
}

describe("MCP Inspector CLI with its own OAuth", () => {
  it("authorizes, then steps up for a tool that needs a wider scope and the retried call works", async () => {
    const callback = `http://127.0.0.1:${await freePort()}/oauth/callback`;
    const clientId = await registerClient(server.url, [callback]);
    const common = ["--client-id", clientId, "--callback-url", callback, "--method", "tools/call"];

    // One run: the first authorization grants the baseline; orders_search then needs orders.search (403, step-up).
    const run = await inspector([...common, "--tool-name", "orders_search", "--tool-arg", "status=PAID"], "ana");
    expect(run.code, run.stderr).toBe(0);
    expect(run.authorizationUrls).toHaveLength(2);
    expect(run.authorizationUrls[0]!.searchParams.get("scope")!.split(" ")).not.toContain("orders.search");
    expect(run.stderr).toContain("needs additional scope: orders.search");
    expect(run.authorizationUrls[1]!.searchParams.get("scope")!.split(" ")).toContain("orders.search");
    expect(run.stdout).toContain('"structuredContent"');
    expect(run.stdout).not.toContain('"isError": true');
  }, 150_000);
});
