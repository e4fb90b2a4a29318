// The action's second step, run with `comment: true` only: the verdict as one pull-request comment, found again
// on the next run by a hidden marker and updated in place, so a pull request carries one Arbiter comment per
// project and mode however often it is pushed. A comment that cannot be written is a warning, not a failed job:
// the verdict is already in the annotations, the summary and the SARIF.
import { readFileSync } from "node:fs";
import { GitHubApi, GitHubFailure } from "./github-api.mjs";
import { input } from "./inputs.mjs";
import { info, main, mask, noticeCommand, setOutput, shortened, warningCommand } from "./workflow.mjs";

/** GitHub refuses a comment body above 65,536 characters. */
const COMMENT_LIMIT = 65_000;
const TITLE = "Arbiter pull-request comment";

/** The hidden first line that finds this project's and mode's comment again (no "--" or ">" can end it early). */
function marker(project, mode) {
  const safe = (text) => text.replace(/[^A-Za-z0-9._]+/g, "_");
  return `<!-- arbiter-action project=${safe(project)} mode=${safe(mode)} -->`;
}

/** The event that started the run (GITHUB_EVENT_PATH), or nothing when it cannot be read. */
function runEvent() {
  try {
    return JSON.parse(readFileSync(process.env.GITHUB_EVENT_PATH ?? "", "utf8"));
  } catch {
    return undefined;
  }
}

/** The pull request of this event: pull_request and pull_request_target, or a comment on a pull request. */
function pullRequestNumber(event) {
  const number = event?.pull_request?.number ?? (event?.issue?.pull_request ? event.issue.number : undefined);
  return Number.isInteger(number) && number > 0 ? number : undefined;
}

/** A link to the run, and the commit the pull request's head was at (GITHUB_SHA is the temporary merge commit). */
function footer(event) {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: run } = process.env;
  if (!server || !repository || !/^\d+$/.test(run ?? "")) return "";
  const sha = event?.pull_request?.head?.sha ?? process.env.GITHUB_SHA;
  const commit = /^[0-9a-f]{7,64}$/i.test(sha ?? "") ? ` at ${sha.slice(0, 7)}` : "";
  return `\n\n<sub>Arbiter action, [run ${run}](${server}/${repository}/actions/runs/${run})${commit}. This comment is updated on every run.</sub>\n`;
}

await main(TITLE, async () => {
  const token = input("github-token");
  if (token) mask(token);
  const event = runEvent();
  const number = pullRequestNumber(event);
  if (!number) {
    noticeCommand(
      TITLE,
      `No pull request in this ${process.env.GITHUB_EVENT_NAME || "workflow"} event, so no comment: the verdict is in the job summary.`,
    );
    return;
  }
  if (!token) {
    warningCommand(
      TITLE,
      "The input `github-token` is empty, so no comment was written: leave it at its default (github.token).",
    );
    return;
  }
  const project = input("project");
  const mode = input("mode") || "snapshot";
  const tag = marker(project, mode);
  const verdict = readFileSync(process.env.ARBITER_MARKDOWN_FILE ?? "", "utf8");
  const body = `${tag}\n${shortened(verdict, COMMENT_LIMIT - 1000, `the full verdict is at ${process.env.ARBITER_VERDICT_URL}`)}${footer(event)}`;
  const api = new GitHubApi(
    process.env.GITHUB_API_URL || "https://api.github.com",
    token,
    process.env.GITHUB_REPOSITORY ?? "",
  );
  try {
    const existing = await api.findComment(number, tag, input("comment-author") || "github-actions[bot]");
    const written = existing ? await api.update(existing.id, body) : await api.create(number, body);
    if (typeof written?.html_url === "string") setOutput("comment-url", written.html_url);
    info(
      `Arbiter: ${existing ? "updated the" : "wrote a"} comment on pull request #${number}: ${written?.html_url ?? ""}`,
    );
  } catch (error) {
    if (!(error instanceof GitHubFailure)) throw error;
    warningCommand(TITLE, `No comment on pull request #${number}: ${error.message}`);
  }
});
