/**
 * The quickstart in examples/README.md, command by command, against a real `wrangler dev`: a newcomer reaches a
 * first rejected verdict with those commands and the files in examples/ alone. Each command's exit code is the
 * one its comment states. The browser login is replaced by a token for the same user and scopes, and the
 * project is renamed so other files on the shared server cannot meet it.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { obtainToken } from "../helpers/oauth-http";
import { sharedWranglerDev } from "../helpers/shared-wrangler-dev";
import type { WranglerDev } from "../helpers/wrangler-dev";

const REPO = resolve(import.meta.dirname, "../..");
const PROJECT = "quickstart-example";
let server: WranglerDev;
let token: string;

interface Step {
  args: string[];
  exit: number;
  line: string;
}

/** The sh block of examples/README.md: every `node bin/arbiter.mjs ...` line with the exit code its comment names. */
function quickstart(): { login: string | undefined; steps: Step[] } {
  const readme = readFileSync(resolve(REPO, "examples/README.md"), "utf8");
  const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  const lines = block.split("\n").filter((line) => line.startsWith("node bin/arbiter.mjs "));
  const steps = lines
    .filter((line) => !line.startsWith("node bin/arbiter.mjs login"))
    .map((line) => {
      const [command, comment = ""] = line.split(/\s+#\s+/, 2);
      const exit = /exit (\d)/.exec(comment)?.[1];
      if (exit === undefined) throw new Error(`the quickstart line "${line}" names no exit code`);
      return { args: command!.split(/\s+/).slice(2).map((arg) => (arg === "shop" ? PROJECT : arg)), exit: Number(exit), line };
    });
  return { login: lines.find((line) => line.startsWith("node bin/arbiter.mjs login")), steps };
}

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [resolve(REPO, "bin/arbiter.mjs"), ...args], {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? "", HOME: "/nonexistent", ARBITER_URL: server.url, ARBITER_TOKEN: token },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += String(chunk)));
    child.stderr.on("data", (chunk) => (stderr += String(chunk)));
    child.once("error", fail);
    child.once("close", (code) => done({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  server = await sharedWranglerDev();
  token = await obtainToken(server.url, { user: "ana", scope: "contracts.read contracts.write snapshots.write", resource: `${server.url}/api` });
}, 180_000);

describe("the examples quickstart", () => {
  it("reaches a first rejected verdict with its own commands and files, each exiting as its comment says", async () => {
    const { login, steps } = quickstart();
    expect(login, "the quickstart starts by signing in").toContain("--server http://localhost:8787");
    expect(steps.length).toBeGreaterThanOrEqual(5);
    const outputs: string[] = [];
    for (const step of steps) {
      const result = await run(step.args);
      expect(result.code, `${step.line}\n${result.stdout}\n${result.stderr}`).toBe(step.exit);
      outputs.push(result.stdout);
    }
    const rejected = outputs[steps.findIndex((s) => s.args.includes("examples/draft-breaking.yaml"))]!;
    expect(rejected).toContain("REJECTED");
    expect(rejected).toMatch(/requires query parameter "tenant"/);
    const traffic = outputs[steps.findIndex((s) => s.args[0] === "exchanges")]!;
    expect(traffic).toContain("REJECTED");
  });
});
