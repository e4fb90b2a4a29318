/**
 * The GitHub Action (action.yml at the repository root, its scripts in action/), run step by step as a runner
 * runs a composite action (test/helpers/composite-action.ts) with the files and variables GitHub provides: a
 * pull_request event payload, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY per step, the workspace, the build's commit,
 * branch and run. It talks to a real `wrangler dev` with a CI key created over REST, downloads the CLI that
 * server serves, and comments through a loopback server playing GitHub's REST API. Checked: outputs, the job
 * summary, SARIF against the SARIF 2.1.0 schema, annotations on the document's lines, the exit code of each
 * threshold and mode, one comment updated in place, the key never printed, and one clear ::error:: per bad input.
 */
import { Validator } from "@cfworker/json-schema";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import sarifSchema from "../fixtures/sarif/sarif-2.1.0.schema.json";
import {
  readActionMetadata,
  removeRunnerFolders,
  runCompositeAction,
  type ActionRun,
} from "../helpers/composite-action";
import { startGitHubRestLoopback, type GitHubRestLoopback } from "../helpers/github-rest-loopback";
import { obtainToken } from "../helpers/oauth-http";
import { sharedWranglerDev } from "../helpers/shared-wrangler-dev";
import { freePort, type WranglerDev } from "../helpers/wrangler-dev";

const REPO = resolve(import.meta.dirname, "../..");
const PROJECT = "gha-orders";
const CONTRACT_PROJECT = "gha-contracts";
const IMPOSTOR = `<!-- arbiter-action project=${PROJECT.replace(/-/g, "_")} mode=snapshot -->\nArbiter conformance: ✅ Approved (typed by someone)`;
/** The action's own comments: its marker, written by the job token's account. */
const ours = () =>
  github.comments
    .get(PR)!
    .filter((c) => c.body.startsWith("<!-- arbiter-action") && c.user.login === "github-actions[bot]");
const REPOSITORY = "acme/shop";
const PR = 7;
const GITHUB_TOKEN = "ghs_loopbackJobToken0123456789abcdef";
const READ_ONLY_TOKEN = "ghs_loopbackReadOnly0123456789abcdef";
/** GITHUB_SHA of a pull_request run is the temporary merge commit; the event names the head commit. */
const SHA = "3f2a9c1d0b8e7f6a5c4d3e2f1a0b9c8d7e6f5a4b";
const HEAD_SHA = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d";
const HEAD_REF = "feature/orders-total";
const RUN_ID = "4242";
const DOCUMENT = "api/openapi.yaml";
const REFUSED_KEY = "arb_ci_acme_0123456789abcdef_NotAKeyNotAKeyNotAKeyNotAKeyNotAKey0123";

let server: WranglerDev;
let github: GitHubRestLoopback;
let ciKey: string;
let workspace: string;
let runnerTemp: string;
let eventPath: string;
/** Every run of the file with the key and token it was given, for the check that none is ever printed. */
const everyRun: Array<{ run: ActionRun; key: string; token: string | undefined }> = [];

function runnerEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: SHA,
    GITHUB_REF: `refs/pull/${PR}/merge`,
    GITHUB_REF_NAME: `${PR}/merge`,
    GITHUB_HEAD_REF: HEAD_REF,
    GITHUB_BASE_REF: "main",
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_API_URL: github.url,
    GITHUB_REPOSITORY: REPOSITORY,
    GITHUB_RUN_ID: RUN_ID,
    RUNNER_TEMP: runnerTemp,
    RUNNER_OS: "Linux",
    ...overrides,
  };
}

async function runAction(inputs: Record<string, string>, env: Record<string, string> = {}): Promise<ActionRun> {
  const given: Record<string, string> = { server: server.url, "ci-key": ciKey, project: PROJECT, ...inputs };
  const run = await runCompositeAction(
    { actionPath: REPO, workspace, env: runnerEnv(env), token: GITHUB_TOKEN },
    given,
  );
  everyRun.push({
    run,
    key: given["ci-key"]!,
    token: given.comment === "true" ? (given["github-token"] ?? GITHUB_TOKEN) : undefined,
  });
  return run;
}

/** Copies an example into the workspace where a build would write it. */
function place(example: string, path = DOCUMENT): string {
  mkdirSync(resolve(workspace, path, ".."), { recursive: true });
  copyFileSync(resolve(REPO, "examples", example), resolve(workspace, path));
  return path;
}

interface Annotation {
  level: string;
  file?: string;
  line?: number;
  title: string;
  message: string;
}

/** The workflow commands that annotate (error, warning, notice), properties decoded as the runner decodes them. */
function annotations(stdout: string): Annotation[] {
  const decode = (text: string) =>
    text.replace(/%2C/g, ",").replace(/%3A/g, ":").replace(/%0A/g, "\n").replace(/%0D/g, "\r").replace(/%25/g, "%");
  return stdout
    .split("\n")
    .map((line) => /^::(error|warning|notice) ([^:]*)::(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => {
      const properties = Object.fromEntries(
        match[2]!
          .split(",")
          .map((pair) => [pair.slice(0, pair.indexOf("=")), decode(pair.slice(pair.indexOf("=") + 1))]),
      );
      return {
        level: match[1]!,
        file: properties.file,
        line: properties.line ? Number(properties.line) : undefined,
        title: properties.title ?? "",
        message: decode(match[3]!),
      };
    });
}

/** The lines of `file` that belong to one operation, e.g. "GET /orders/{id}": from its path key to the next path. */
function operationLines(file: string, operation: string): [number, number] {
  const lines = readFileSync(resolve(workspace, file), "utf8").split("\n");
  const path = operation.split(" ")[1]!;
  const start = lines.indexOf(`  ${path}:`) + 1;
  const next = lines.findIndex((line, index) => index >= start && /^ {2}\/\S*:$/.test(line));
  return [start, next < 0 ? lines.length : next];
}

function sarifOf(run: ActionRun): any {
  return JSON.parse(readFileSync(run.outputs["sarif-file"]!, "utf8"));
}

beforeAll(async () => {
  server = await sharedWranglerDev();
  github = await startGitHubRestLoopback({
    repository: REPOSITORY,
    token: GITHUB_TOKEN,
    readOnlyToken: READ_ONLY_TOKEN,
  });
  // Someone else's comment that starts with the action's marker: never the one the action takes over.
  github.seed(PR, IMPOSTOR);
  // Other people's comments fill the first page, so the action must page to find its own.
  for (let i = 0; i < 105; i++) github.seed(PR, `Looks good to me (${i})`);
  workspace = mkdtempSync(join(tmpdir(), "arbiter-action-workspace-"));
  mkdirSync(join(workspace, ".git"));
  runnerTemp = mkdtempSync(join(tmpdir(), "arbiter-action-runner-"));
  eventPath = join(runnerTemp, "event.json");
  writeFileSync(
    eventPath,
    JSON.stringify({
      action: "synchronize",
      number: PR,
      pull_request: { number: PR, head: { ref: HEAD_REF, sha: HEAD_SHA }, base: { ref: "main" } },
      repository: { full_name: REPOSITORY },
    }),
  );

  const admin = await obtainToken(server.url, {
    user: "ana",
    scope: "keys.admin contracts.read contracts.write",
    resource: `${server.url}/api`,
  });
  const contract = await fetch(`${server.url}/api/v1/projects/${PROJECT}/contracts?create=true`, {
    method: "POST",
    headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/yaml" },
    body: readFileSync(resolve(REPO, "examples/contract.yaml")),
  });
  expect(contract.status).toBe(201);
  const key = await fetch(`${server.url}/api/v1/keys`, {
    method: "POST",
    headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      name: "GitHub Action test",
      projects: [PROJECT, CONTRACT_PROJECT],
      scopes: ["contracts.read", "contracts.write", "snapshots.write"],
    }),
  });
  expect(key.status).toBe(201);
  ciKey = ((await key.json()) as { secret: string }).secret;
}, 120_000);

afterAll(async () => {
  await github?.close();
  removeRunnerFolders();
  for (const folder of [workspace, runnerTemp]) if (folder) rmSync(folder, { recursive: true, force: true });
});

describe("action.yml", () => {
  it("is a composite action the Marketplace accepts, whose steps see inputs only through env", () => {
    const action = readActionMetadata(REPO);
    expect(action.name).toBeTruthy();
    // The Marketplace refuses a description of 125 characters or more, and a listing without branding.
    expect(action.description.length).toBeLessThan(125);
    expect(action.branding?.icon).toBeTruthy();
    expect(action.branding?.color).toBeTruthy();
    expect(action.runs.using).toBe("composite");
    for (const [name, spec] of Object.entries(action.inputs)) expect(spec.description, name).toBeTruthy();
    for (const step of action.runs.steps) {
      expect(step.shell).toBe("bash");
      // An input interpolated into a script is a script injection and an echoed secret; env is neither.
      expect(step.run).not.toContain("${{");
    }
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining([
        "server",
        "ci-key",
        "project",
        "document",
        "mode",
        "fail-on",
        "commit",
        "branch",
        "run-url",
        "comment",
      ]),
    );
  });

  it("is released with the product: docs/ci.md and the README name the tag of package.json's version, the CLI reports the same", () => {
    const version = JSON.parse(readFileSync(resolve(REPO, "package.json"), "utf8")).version as string;
    expect(readFileSync(resolve(REPO, "bin/cli/help.mjs"), "utf8")).toContain(`export const VERSION = "${version}";`);
    const ci = ["docs/ci.md", "README.md"].map((file) => readFileSync(resolve(REPO, file), "utf8")).join("\n");
    const uses = [...ci.matchAll(/uses: [\w.-]+\/arbiter@([^\s`]+)/g)].map((match) => match[1]);
    expect(uses.length).toBeGreaterThan(1);
    for (const tag of uses) expect(tag).toBe(`v${version}`);
  });

  it("docs/ci.md's workflow shows every input, and reads only outputs the action has", () => {
    const action = readActionMetadata(REPO);
    const ci = readFileSync(resolve(REPO, "docs/ci.md"), "utf8");
    const block = /```yaml\n(# \.github\/workflows\/arbiter\.yml[\s\S]*?)```/.exec(
      ci.slice(ci.indexOf("\n## The GitHub Action")),
    )![1]!;
    const workflow = parse(block) as {
      permissions: Record<string, string>;
      jobs: Record<string, { steps: Array<{ id?: string; uses?: string; with?: Record<string, unknown> }> }>;
    };
    expect(workflow.permissions).toEqual({ contents: "read", "pull-requests": "write", "security-events": "write" });
    const steps = Object.values(workflow.jobs)[0]!.steps;
    const step = steps.find((s) => /\/arbiter@/.test(s.uses ?? ""))!;
    const shown = Object.keys(step.with ?? {});
    const commented = [...block.matchAll(/^ +# ([a-z-]+): /gm)].map((match) => match[1]!);
    expect([...shown, ...commented].sort()).toEqual(Object.keys(action.inputs).sort());
    for (const name of shown) expect(action.inputs[name], name).toBeDefined();
    expect(steps.find((s) => s.uses?.startsWith("github/codeql-action/upload-sarif"))?.with?.sarif_file).toBe(
      `\${{ steps.${step.id}.outputs.sarif-file }}`,
    );
    for (const match of block.matchAll(/steps\.(\w+)\.outputs\.([\w-]+)/g)) {
      expect(match[1]).toBe(step.id);
      expect(action.outputs[match[2]!], match[2]).toBeDefined();
    }
  });
});

describe("the action against wrangler dev", () => {
  it("a rejected snapshot: annotations on the document's lines, outputs, summary, SARIF, a new comment, exit 1", async () => {
    const document = place("draft-breaking.yaml");
    const run = await runAction({ document, comment: "true" });
    expect(
      run.steps.map((step) => [step.id, step.code]),
      run.stderr,
    ).toEqual([
      ["verdict", 0],
      ["comment", 0],
      ["threshold", 1],
    ]);
    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({
      verdict: "rejected",
      approved: "false",
      errors: "4",
      warnings: "0",
      infos: "0",
      violations: "4",
      "breaking-changes": "0",
    });
    expect(run.outputs.url).toMatch(new RegExp(`^${server.url}/admin/projects/${PROJECT}/verdicts/\\d+$`));

    // Each annotation sits in the document, inside the operation it names, on the line the SARIF result names.
    const sarif = sarifOf(run);
    const located = annotations(run.stdout).filter((a) => a.file);
    expect(located).toHaveLength(4);
    for (const annotation of located) {
      expect(annotation).toMatchObject({ level: "error", file: DOCUMENT });
      const [rule, location] = annotation.title.split(" at ");
      const [start, end] = operationLines(DOCUMENT, location!.split("#")[0]!);
      expect(annotation.line, annotation.title).toBeGreaterThan(start);
      expect(annotation.line, annotation.title).toBeLessThanOrEqual(end);
      const result = sarif.runs[0].results.find(
        (r: any) => r.ruleId === rule && r.locations[0].logicalLocations[0].fullyQualifiedName === location,
      );
      expect(result?.locations[0].physicalLocation.region.startLine, annotation.title).toBe(annotation.line);
    }
    expect(annotations(run.stdout).filter((a) => a.title === "Arbiter")).toEqual([
      expect.objectContaining({
        level: "error",
        message: expect.stringMatching(
          /^Failed with fail-on: error: the verdict is rejected \(4 errors\)\. Full verdict: http/,
        ),
      }),
    ]);

    // SARIF for code scanning: valid, each result at its file and line.
    const validation = new Validator(structuredClone(sarifSchema) as object, "4", false).validate(sarif);
    expect(validation.valid, JSON.stringify(validation.errors.slice(0, 3))).toBe(true);
    expect(sarif.runs[0].results).toHaveLength(4);
    for (const result of sarif.runs[0].results)
      expect(result.locations[0].physicalLocation.artifactLocation.uri).toBe(DOCUMENT);

    // The job summary is the Markdown verdict, lines and link included.
    expect(run.summary).toContain("Arbiter conformance: ❌ Rejected");
    expect(run.summary).toContain(`${DOCUMENT}:`);
    expect(run.summary).toContain(run.outputs.url);
    expect(readFileSync(run.outputs["markdown-file"]!, "utf8")).toBe(`${run.summary.trimEnd()}\n`);

    // The build's commit, branch and run came from GitHub's variables.
    const latest = await fetch(`${server.url}/api/v1/projects/${PROJECT}/snapshots/latest`, {
      headers: { Authorization: `Bearer ${ciKey}` },
    });
    expect((await latest.json()) as any).toMatchObject({
      snapshot: { commit: SHA, branch: HEAD_REF, runUrl: `https://github.com/${REPOSITORY}/actions/runs/${RUN_ID}` },
    });

    // One new comment, with the job's token, after paging past other people's comments.
    const writes = github.requests.filter((r) => r.method !== "GET");
    expect(writes.map((r) => [r.method, r.path])).toEqual([["POST", `/repos/${REPOSITORY}/issues/${PR}/comments`]]);
    expect(
      github.requests
        .filter((r) => r.method === "GET")
        .map((r) => new URL(r.path, "http://x").searchParams.get("page")),
    ).toEqual(["1", "2"]);
    for (const request of github.requests)
      expect(request).toMatchObject({ authorization: `Bearer ${GITHUB_TOKEN}`, apiVersion: "2022-11-28" });
    const written = ours();
    expect(written).toHaveLength(1);
    expect(written[0]!.body).toContain("Arbiter conformance: ❌ Rejected");
    expect(written[0]!.body).toContain(
      `[run ${RUN_ID}](https://github.com/${REPOSITORY}/actions/runs/${RUN_ID}) at ${HEAD_SHA.slice(0, 7)}.`,
    );
    expect(run.outputs["comment-url"]).toBe(written[0]!.html_url);
    // The other account's comment with the same marker is as it was.
    expect(github.comments.get(PR)![0]).toMatchObject({ body: IMPOSTOR, user: { login: "octocat" } });
  });

  it("the next push's run updates the same comment instead of adding one, and passes", async () => {
    const before = github.requests.length;
    const first = ours()[0]!;
    const run = await runAction({ document: place("draft-fixed.yaml"), comment: "true" });
    expect(run.code, run.stdout).toBe(0);
    expect(run.outputs).toMatchObject({ verdict: "approved", approved: "true", errors: "0", violations: "0" });
    const writes = github.requests.slice(before).filter((r) => r.method !== "GET");
    expect(writes.map((r) => [r.method, r.path])).toEqual([
      ["PATCH", `/repos/${REPOSITORY}/issues/comments/${first.id}`],
    ]);
    const written = ours();
    expect(written.map((c) => c.id)).toEqual([first.id]);
    expect(written[0]!.body).toContain("✅ Approved");
    expect(written[0]!.body).not.toContain("Rejected");
    expect(github.comments.get(PR)![0]).toMatchObject({ body: IMPOSTOR, user: { login: "octocat" } });
    expect(run.outputs["comment-url"]).toBe(first.html_url);
    expect(annotations(run.stdout).filter((a) => a.level === "error")).toEqual([]);
  });

  it("fail-on decides the exit: error passes warnings, warning fails on them, never passes a rejection", async () => {
    // The fixed draft without the enum on an order's status: approved, with two warnings.
    const text = readFileSync(resolve(REPO, "examples/draft-fixed.yaml"), "utf8").replace(
      /^ {10}enum: \[PENDING, PAID, SHIPPED\]\n/m,
      "",
    );
    writeFileSync(resolve(workspace, "api/warnings.yaml"), text);
    const [onError, onWarning, never] = await Promise.all([
      runAction({ document: "api/warnings.yaml", mode: "check", "fail-on": "error" }),
      runAction({ document: "api/warnings.yaml", mode: "check", "fail-on": "warning" }),
      runAction({ document: place("draft-breaking.yaml", "api/breaking.yaml"), mode: "check", "fail-on": "never" }),
    ]);
    expect(
      onError.steps.map((step) => [step.id, step.code]),
      onError.stdout,
    ).toEqual([
      ["verdict", 0],
      ["comment", null],
      ["threshold", 0],
    ]);
    expect(onError.outputs).toMatchObject({ verdict: "approved", errors: "0", warnings: "2" });
    expect(
      annotations(onError.stdout).filter((a) => a.level === "warning" && a.file === "api/warnings.yaml"),
    ).toHaveLength(2);
    expect(onWarning.code).toBe(1);
    expect(annotations(onWarning.stdout).find((a) => a.title === "Arbiter")?.message).toMatch(
      /^Failed with fail-on: warning: 2 warnings\./,
    );
    expect(never.code, never.stdout).toBe(0);
    expect(never.outputs).toMatchObject({ verdict: "rejected", errors: "4" });
    // A draft has no verdict page of its own: the URL is the project's page.
    expect(onError.outputs.url).toBe(`${server.url}/admin/projects/${PROJECT}`);
    expect(never.summary).toContain("Rejected");
  });

  it("exchanges mode checks recorded traffic; contract mode fails on breaking changes, with the CLI of this repository", async () => {
    const base = { project: CONTRACT_PROJECT, mode: "contract", cli: "repository" };
    const [traffic, first] = await Promise.all([
      runAction({ document: place("traffic.har", "tests/traffic.har"), mode: "exchanges" }),
      runAction({ ...base, document: place("contract.yaml", "api/contract.yaml"), label: "v1-orders" }),
    ]);
    expect(traffic.code).toBe(1);
    expect(traffic.outputs).toMatchObject({ verdict: "rejected", errors: "1" });
    expect(
      annotations(traffic.stdout).filter(
        (a) => a.level === "error" && a.title.startsWith("response-invalid at GET /orders/{id}"),
      ),
    ).toHaveLength(1);
    expect(traffic.outputs.url).toBe(`${server.url}/admin/projects/${PROJECT}`);

    expect(first.code, first.stdout).toBe(0);
    expect(first.outputs).toMatchObject({ verdict: "approved", "breaking-changes": "0" });
    expect(first.outputs.url).toMatch(new RegExp(`^${server.url}/admin/projects/${CONTRACT_PROJECT}/verdicts/\\d+$`));
    const breaking = await runAction({ ...base, document: place("draft-breaking.yaml", "api/contract.yaml") });
    expect(breaking.code).toBe(1);
    expect(breaking.outputs).toMatchObject({ verdict: "approved", "breaking-changes": "4" });
    expect(breaking.summary).toContain("contract changelog");
    expect(annotations(breaking.stdout).find((a) => a.title === "Arbiter")?.message).toContain(
      "4 breaking changes for clients of the previous contract version",
    );
    // The served CLI was not downloaded: the repository's bin/ ran.
    expect(existsSync(join(resolve(breaking.outputs["json-file"]!, ".."), "arbiter.mjs"))).toBe(false);
    expect(existsSync(join(resolve(traffic.outputs["json-file"]!, ".."), "arbiter.mjs"))).toBe(true);
  });

  it("a comment it may not write, or no pull request, is a warning or a notice, not a failed job", async () => {
    const document = place("draft-fixed.yaml");
    const pushEvent = join(runnerTemp, "push.json");
    writeFileSync(pushEvent, JSON.stringify({ ref: "refs/heads/main", after: SHA }));
    const [readOnly, push] = await Promise.all([
      runAction({ document, comment: "true", "github-token": READ_ONLY_TOKEN }),
      runAction(
        { document, comment: "true" },
        { GITHUB_EVENT_NAME: "push", GITHUB_EVENT_PATH: pushEvent, GITHUB_REF_NAME: "main", GITHUB_HEAD_REF: "" },
      ),
    ]);
    expect(readOnly.code, readOnly.stdout).toBe(0);
    expect(annotations(readOnly.stdout).find((a) => a.title === "Arbiter pull-request comment")).toMatchObject({
      level: "warning",
      message: expect.stringContaining("permissions: pull-requests: write"),
    });
    expect(push.code).toBe(0);
    expect(annotations(push.stdout).find((a) => a.title === "Arbiter pull-request comment")).toMatchObject({
      level: "notice",
      message: expect.stringContaining("No pull request in this push event"),
    });
    expect(push.outputs["comment-url"]).toBe("");
  });
});

describe("bad inputs", () => {
  beforeAll(() => {
    place("draft-fixed.yaml");
    writeFileSync(resolve(workspace, "api/not-openapi.json"), JSON.stringify({ hello: "world" }));
  });
  const unreachable = async () => `http://127.0.0.1:${await freePort()}`;
  const cases: Array<{ name: string; inputs: () => Promise<Record<string, string>>; says: RegExp }> = [
    {
      name: "a missing input",
      inputs: async () => ({ project: "", document: DOCUMENT }),
      says: /^Missing input of the Arbiter action: `project` \(the Arbiter project/,
    },
    {
      name: "an empty key (a fork's pull request)",
      inputs: async () => ({ "ci-key": "", document: DOCUMENT }),
      says: /`ci-key` \(a CI key .*secrets\.ARBITER_CI_KEY.*Secrets are empty in pull requests from forks/,
    },
    {
      name: "an unknown mode",
      inputs: async () => ({ document: DOCUMENT, mode: "snapshots" }),
      says: /^The input `mode` is "snapshots": use one of snapshot, check, contract, exchanges\.$/,
    },
    {
      name: "a value that tries to forge a command",
      inputs: async () => ({ document: DOCUMENT, mode: "snap%0A::error::for\rged" }),
      says: /^The input `mode` is "snap%0A::error::for\\rged": use one of/,
    },
    {
      name: "an unknown threshold",
      inputs: async () => ({ document: DOCUMENT, "fail-on": "errors" }),
      says: /^The input `fail-on` is "errors": use one of error, warning, never\.$/,
    },
    {
      name: "a document that does not exist",
      inputs: async () => ({ document: "build/openapi.json" }),
      says: /^The document "build\/openapi\.json" does not exist in the workspace .*Generate it in an earlier step/,
    },
    {
      name: "an unreachable server",
      inputs: async () => ({ document: DOCUMENT, server: await unreachable() }),
      says: /^Cannot reach the Arbiter server at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)\. Check the `server` input/,
    },
    {
      name: "a server that is not Arbiter",
      inputs: async () => ({ document: DOCUMENT, server: github.url }),
      says: /is not an Arbiter server.*GET \/cli\/arbiter\.mjs answered 401.*`cli: repository`/,
    },
    {
      name: "a document that is not OpenAPI",
      inputs: async () => ({ document: "api/not-openapi.json" }),
      says: /^Arbiter answered 422 invalid_document: .*\n {2}- /,
    },
    {
      name: "a project the key may not use",
      inputs: async () => ({ document: DOCUMENT, project: "gha-elsewhere" }),
      says: /^Arbiter answered 403 project_not_allowed: .*The key is the `ci-key` input: a CI key's scopes and projects/,
    },
    {
      name: "a refused key",
      inputs: async () => ({ document: DOCUMENT, "ci-key": REFUSED_KEY }),
      says: /^Arbiter refused the credentials \(401\).*The key is the `ci-key` input/,
    },
  ];

  it.concurrent.for(cases)(
    "$name: one ::error:: that says what to fix, exit 2, no stack trace, nothing after the first step",
    async ({ inputs, says }, { expect }) => {
      const run = await runAction(await inputs());
      expect(run.code).toBe(2);
      expect(run.steps.map((step) => step.id)).toEqual(["verdict"]);
      const errors = run.stdout.split("\n").filter((line) => line.startsWith("::error"));
      expect(errors, run.stdout).toHaveLength(1);
      const [annotation] = annotations(run.stdout).filter((a) => a.level === "error");
      expect(annotation!.message).toMatch(says);
      expect(run.stdout + run.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
      expect(run.stderr).not.toMatch(/Error:|node:internal/);
      expect(run.outputs.verdict).toBe("");
    },
  );
});

describe("the key", () => {
  it("is masked before anything else and printed nowhere else: not in the log, the outputs, the summary, the files, the comments", () => {
    expect(everyRun.length).toBeGreaterThan(15);
    for (const { run, key, token } of everyRun) {
      // The first line of every run with a key is the command that hides it; with comment: true, the token too.
      if (key) expect(run.stdout.split("\n")[0]).toBe(`::add-mask::${key}`);
      if (token && run.steps.some((step) => step.id === "comment" && !step.skipped))
        expect(run.stdout).toContain(`::add-mask::${token}`);
      for (const secret of [ciKey, REFUSED_KEY, GITHUB_TOKEN, READ_ONLY_TOKEN]) {
        expect(
          run.stdout.split("\n").filter((line) => line.includes(secret) && line !== `::add-mask::${secret}`),
        ).toEqual([]);
        expect(run.stderr).not.toContain(secret);
      }
      const written = [
        ...run.runnerFiles,
        run.outputs["sarif-file"],
        run.outputs["markdown-file"],
        run.outputs["json-file"],
      ].filter((path): path is string => Boolean(path) && existsSync(path!));
      for (const path of written) expect(readFileSync(path, "utf8"), path).not.toContain(ciKey);
    }
    for (const request of github.requests) expect(request.body).not.toContain(ciKey);
    for (const comments of github.comments.values())
      for (const comment of comments) expect(comment.body).not.toContain(ciKey);
  });
});
