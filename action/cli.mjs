// The CLI the action runs: by default the one the server serves (GET /cli/arbiter.mjs), so the action never
// speaks an older or newer dialect than the server it talks to; with `cli: repository`, bin/arbiter.mjs of the
// action's own checkout (the version named in `uses:`).
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { ActionFailure } from "./workflow.mjs";

const DOWNLOAD_TIMEOUT_MS = 30_000;
/** The first lines of every served CLI: a download that lacks them is some other server's page. */
const SIGNATURE = "// Arbiter CI client";

export const REPOSITORY_CLI = fileURLToPath(new URL("../bin/arbiter.mjs", import.meta.url));

/** Downloads the served CLI into `dir` and returns its path; every way this fails names the `server` input. */
export async function servedCli(server, dir) {
  const url = `${server}/cli/arbiter.mjs`;
  let response;
  try {
    response = await fetch(url, {
      signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS),
      headers: { Accept: "text/javascript" },
    });
  } catch (error) {
    const reason =
      error.name === "TimeoutError"
        ? `no answer within ${DOWNLOAD_TIMEOUT_MS / 1000} s`
        : (error.cause?.code ?? error.cause?.message ?? error.message);
    throw new ActionFailure(
      `Cannot reach the Arbiter server at ${server} (${reason}). Check the \`server\` input (the server's public URL, e.g. https://arbiter.example.com) and that this runner can reach it: a server on a private network needs a self-hosted runner there.`,
    );
  }
  const text = await response.text().catch(() => "");
  if (!response.ok || !text.split("\n", 3).some((line) => line.startsWith(SIGNATURE))) {
    throw new ActionFailure(
      `${server} is not an Arbiter server, or one too old to serve its CLI: GET /cli/arbiter.mjs answered ${response.status}${response.ok ? " without the CLI" : ""}. Check the \`server\` input, or set \`cli: repository\` to run the CLI of this action's version.`,
    );
  }
  const path = join(dir, "arbiter.mjs");
  writeFileSync(path, text);
  return path;
}

/**
 * Runs the CLI with Node: its stdout (the verdict's workflow commands) goes straight to the log, where the runner
 * reads it; its stderr is collected, since a "could not verify" message becomes the action's one ::error:: line.
 */
export function runCli(cliPath, args, env, cwd) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env, cwd, stdio: ["ignore", "inherit", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += String(chunk)));
    child.once("error", (error) =>
      fail(new ActionFailure(`Cannot start the Arbiter CLI with ${process.execPath}: ${error.message}.`)),
    );
    child.once("close", (code, signal) => done({ code, signal, stderr }));
  });
}
