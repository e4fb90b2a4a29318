/**
 * GET /cli/arbiter.mjs: the CI command-line tool, served by the server it talks to so a pipeline can fetch it
 * without a package registry. The bytes are exactly bin/arbiter.mjs (bundled as a text module). Public: the
 * tool holds no secret; it needs a CI key to do anything.
 */
import cliSource from "../../bin/arbiter.mjs";

export const CLI_PATH = "/cli/arbiter.mjs";

export function serveCli(request: Request): Response {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response(null, { status: 405, headers: { Allow: "GET, HEAD" } });
  }
  const body = new TextEncoder().encode(cliSource);
  return new Response(request.method === "HEAD" ? null : body, {
    headers: {
      "Content-Type": "text/javascript; charset=utf-8",
      "Content-Length": String(body.byteLength),
      "Content-Disposition": 'inline; filename="arbiter.mjs"',
      "Cache-Control": "public, max-age=300",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
