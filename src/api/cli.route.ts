/**
 * GET /cli/arbiter.mjs: the CI command-line tool, served by the server it talks to so a pipeline can fetch it
 * without a package registry. The sources are bin/arbiter.mjs and its modules in bin/cli/ (bundled as text);
 * they are served joined into one file (cli-bundle.ts), so `node arbiter.mjs` needs nothing beside it. Public:
 * the tool holds no secret; it needs a CI key to do anything.
 */
import { bundleCli } from "./cli-bundle";
import { CLI_SOURCES } from "./cli-sources";

export const CLI_PATH = "/cli/arbiter.mjs";

let bundled: Uint8Array | undefined;

/** Joined once per isolate: the sources are part of the deployment, so the file cannot change while it runs. */
function cliBytes(): Uint8Array {
  bundled ??= new TextEncoder().encode(bundleCli(CLI_SOURCES));
  return bundled;
}

export function serveCli(request: Request): Response {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response(null, { status: 405, headers: { Allow: "GET, HEAD" } });
  }
  const body = cliBytes();
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
