/**
 * A loopback HTTP server that plays the part of GitHub's REST API for issue comments (list with pages, create,
 * update; https://docs.github.com/rest/issues/comments), as GitHub answers them: JSON bodies, 401 for another
 * token, 403 "Resource not accessible by integration" for a read-only token's writes. It records every request
 * so a test can say what was asked, and holds the comments so a second run can find the first one's.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  apiVersion: string | undefined;
  body: string;
}

export interface Comment {
  id: number;
  body: string;
  user: { login: string; type: string };
  html_url: string;
}

export interface GitHubRestLoopback {
  url: string;
  requests: RecordedRequest[];
  /** Comments by issue or pull-request number. */
  comments: Map<number, Comment[]>;
  /** Adds a comment another user wrote. */
  seed(number: number, body: string): void;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((done) => {
    let text = "";
    request.on("data", (chunk) => (text += String(chunk)));
    request.on("end", () => done(text));
  });
}

export async function startGitHubRestLoopback(options: {
  repository: string;
  token: string;
  readOnlyToken: string;
}): Promise<GitHubRestLoopback> {
  const comments = new Map<number, Comment[]>();
  const requests: RecordedRequest[] = [];
  let nextId = 1000;
  const htmlUrl = (number: number, id: number) =>
    `https://github.com/${options.repository}/pull/${number}#issuecomment-${id}`;
  const add = (number: number, body: string, login: string): Comment => {
    const id = nextId++;
    const comment = {
      id,
      body,
      user: { login, type: login.endsWith("[bot]") ? "Bot" : "User" },
      html_url: htmlUrl(number, id),
    };
    comments.set(number, [...(comments.get(number) ?? []), comment]);
    return comment;
  };

  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    const url = new URL(request.url ?? "/", "http://loopback");
    requests.push({
      method: request.method ?? "",
      path: url.pathname + url.search,
      authorization: request.headers.authorization,
      apiVersion: request.headers["x-github-api-version"] as string | undefined,
      body,
    });
    const send = (status: number, data: unknown) => {
      response.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
      response.end(JSON.stringify(data));
    };
    const bearer = request.headers.authorization?.replace(/^Bearer /, "");
    if (bearer !== options.token && bearer !== options.readOnlyToken)
      return send(401, { message: "Bad credentials", status: "401" });
    const prefix = `/repos/${options.repository}/issues/`;
    if (!url.pathname.startsWith(prefix)) return send(404, { message: "Not Found", status: "404" });
    const rest = url.pathname.slice(prefix.length);
    const list = /^(\d+)\/comments$/.exec(rest);
    const one = /^comments\/(\d+)$/.exec(rest);
    const writing = request.method === "POST" || request.method === "PATCH";
    if (writing && bearer === options.readOnlyToken)
      return send(403, { message: "Resource not accessible by integration", status: "403" });
    if (list && request.method === "GET") {
      const perPage = Math.min(Number(url.searchParams.get("per_page") ?? 30), 100);
      const page = Number(url.searchParams.get("page") ?? 1);
      return send(200, (comments.get(Number(list[1])) ?? []).slice((page - 1) * perPage, page * perPage));
    }
    if (list && request.method === "POST")
      return send(201, add(Number(list[1]), JSON.parse(body).body, "github-actions[bot]"));
    if (one && request.method === "PATCH") {
      for (const thread of comments.values()) {
        const comment = thread.find((c) => c.id === Number(one[1]));
        if (comment) {
          comment.body = JSON.parse(body).body;
          return send(200, comment);
        }
      }
      return send(404, { message: "Not Found", status: "404" });
    }
    return send(404, { message: "Not Found", status: "404" });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    comments,
    seed: (number, body) => void add(number, body, "octocat"),
    close: () => new Promise((done) => server.close(() => done())),
  };
}
