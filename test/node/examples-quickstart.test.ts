/**
 * The README's quickstart, command by command, against a real `wrangler dev`: a newcomer reaches a first rejected
 * verdict, and the MCP Inspector's view of it, with those commands and the files in examples/ alone. Each command's
 * exit code is the one its comment states. The browser logins are replaced by tokens for the same user and
 * scopes, and the project is renamed so other files on the shared server cannot meet it.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { obtainToken } from "../helpers/oauth-http";
import { sharedWranglerDev } from "../helpers/shared-wrangler-dev";
import type { WranglerDev } from "../helpers/wrangler-dev";
import { runProcess } from "../helpers/run-process";

const REPO = resolve(import.meta.dirname, "../..");
const PROJECT = "quickstart-example";
const README_SERVER = "http://localhost:8787";
const CLI = "node bin/arbiter.mjs ";
const INSPECTOR = "npx @modelcontextprotocol/inspector ";
const MCP_TOKEN = "$(node bin/arbiter.mjs token --resource mcp)";
let server: WranglerDev;
let restToken: string;
let mcpToken: string;

interface Step {
  program: "cli" | "inspector";
  args: string[];
  exit: number;
  line: string;
}

/** Words of one shell line: spaces split, single and double quotes group (enough for the README's lines). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}

/** The sh block under "## Quickstart" in README.md: logins apart, every other line with the exit code its comment names. */
function quickstart(): { logins: string[]; steps: Step[] } {
  const readme = readFileSync(resolve(REPO, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("\n## Quickstart"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const lines = block.split("\n").filter((line) => line.trim() !== "");
  const logins = lines.filter((line) => line.startsWith(`${CLI}login`));
  const steps = lines
    .filter((line) => !logins.includes(line))
    .map((line): Step => {
      const [command, comment = ""] = line.split(/\s+#\s+/, 2);
      const exit = /exit (\d)/.exec(comment)?.[1];
      if (exit === undefined) throw new Error(`the quickstart line "${line}" names no exit code`);
      const program = command!.startsWith(CLI) ? "cli" : command!.startsWith(INSPECTOR) ? "inspector" : undefined;
      if (!program) throw new Error(`the quickstart line "${line}" runs neither the CLI nor the Inspector`);
      const words = shellWords(command!.replace(MCP_TOKEN, "MCP_TOKEN")).slice(program === "cli" ? 2 : 1);
      const args = words.map((word) =>
        word
          .replace(README_SERVER, server.url)
          .replace("MCP_TOKEN", mcpToken)
          .replace(/^shop$/, PROJECT)
          .replace(/^project=shop$/, `project=${PROJECT}`),
      );
      return { program, args, exit: Number(exit), line };
    });
  return { logins, steps };
}

function run(step: Step): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [command, args] =
    step.program === "cli"
      ? [process.execPath, [resolve(REPO, "bin/arbiter.mjs"), ...step.args]]
      : ["npx", ["--no-install", ...step.args]];
  return runProcess(command, args, {
    env: { PATH: process.env.PATH ?? "", HOME: "/nonexistent", ARBITER_URL: server.url, ARBITER_TOKEN: restToken },
    cwd: REPO,
  });
}

beforeAll(async () => {
  server = await sharedWranglerDev();
  restToken = await obtainToken(server.url, {
    user: "ana",
    scope: "contracts.read contracts.write snapshots.write",
    resource: `${server.url}/api`,
  });
  mcpToken = await obtainToken(server.url, { user: "ana", scope: "contracts.read", resource: `${server.url}/mcp` });
}, 180_000);

describe("the README's quickstart", () => {
  it("reaches a first rejected verdict and the Inspector's view of it, each command exiting as its comment says", async () => {
    const { logins, steps } = quickstart();
    expect(logins[0], "the quickstart starts by signing in").toContain(`--server ${README_SERVER}`);
    expect(
      logins.some((line) => line.includes("--resource mcp")),
      "the Inspector gets a token of its own",
    ).toBe(true);
    expect(steps.length).toBeGreaterThanOrEqual(6);
    const outputs: string[] = [];
    for (const step of steps) {
      const result = await run(step);
      expect(result.code, `${step.line}\n${result.stdout}\n${result.stderr}`).toBe(step.exit);
      outputs.push(result.stdout);
    }
    const rejected = outputs[steps.findIndex((s) => s.args.includes("examples/draft-breaking.yaml"))]!;
    expect(rejected).toContain("REJECTED");
    expect(rejected).toMatch(/requires query parameter "tenant"/);
    const traffic = outputs[steps.findIndex((s) => s.args[0] === "exchanges")]!;
    expect(traffic).toContain("REJECTED");
    const inspected = outputs[steps.findIndex((s) => s.program === "inspector")]!;
    expect(inspected).toMatch(/"approved":\s*true/);
    expect(inspected).toContain(PROJECT);
  }, 180_000);
});
