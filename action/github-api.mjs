// The few GitHub REST calls the pull-request comment needs, at $GITHUB_API_URL (GitHub Enterprise Server has
// its own) with the job's token. https://docs.github.com/rest/issues/comments
import { terminalText } from "../bin/cli/safe-text.mjs";

const TIMEOUT_MS = 20_000;
const PAGE_SIZE = 100;
/** A pull request with more comments than this is searched no further; a new comment is written instead. */
const MAX_PAGES = 30;

/** A GitHub answer or network failure, worded for the person who reads the job's log. */
export class GitHubFailure extends Error {}

const ADVICE = Object.freeze({
  401: "the token was refused: leave the `github-token` input at its default (github.token) or give a valid token.",
  403: "the token may not write comments: give the job `permissions: pull-requests: write`. Pull requests from forks get a read-only token, so no comment can be written for them.",
  404: "the repository or pull request is not visible to this token: check `permissions:` and the `github-token` input.",
});

export class GitHubApi {
  constructor(base, token, repository) {
    this.base = base.replace(/\/+$/, "");
    this.token = token;
    this.repository = repository;
  }

  async call(method, path, body) {
    let response;
    try {
      response = await fetch(`${this.base}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${this.token}`,
          Accept: "application/vnd.github+json",
          "X-GitHub-Api-Version": "2022-11-28",
          "User-Agent": "arbiter-action",
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      const reason =
        error.name === "TimeoutError"
          ? `no answer within ${TIMEOUT_MS / 1000} s`
          : (error.cause?.code ?? error.message);
      throw new GitHubFailure(`cannot reach the GitHub API at ${this.base} (${reason}).`);
    }
    const data = await response.json().catch(() => undefined);
    if (!response.ok) {
      const said =
        typeof data?.message === "string" ? ` (GitHub says: ${terminalText(data.message.slice(0, 200))})` : "";
      throw new GitHubFailure(
        `${method} ${path.split("?")[0]} answered ${response.status}${said}: ${ADVICE[response.status] ?? "try again later."}`,
      );
    }
    return data;
  }

  /** The first comment of the pull request whose body starts with `marker`, searched page by page. */
  /**
   * The comment that starts with `marker` and was written by `author` (the token's own account): anyone may post a
   * comment with the marker, and updating theirs would put the verdict under their name, for them to edit.
   */
  async findComment(number, marker, author) {
    for (let page = 1; page <= MAX_PAGES; page++) {
      const comments = await this.call(
        "GET",
        `/repos/${this.repository}/issues/${number}/comments?per_page=${PAGE_SIZE}&page=${page}`,
      );
      if (!Array.isArray(comments)) return undefined;
      const found = comments.find(
        (comment) =>
          typeof comment?.body === "string" && comment.body.startsWith(marker) && comment?.user?.login === author,
      );
      if (found) return found;
      if (comments.length < PAGE_SIZE) return undefined;
    }
    return undefined;
  }

  create(number, body) {
    return this.call("POST", `/repos/${this.repository}/issues/${number}/comments`, { body });
  }

  update(id, body) {
    return this.call("PATCH", `/repos/${this.repository}/issues/comments/${id}`, { body });
  }
}
