// arbiter build-failed: record that CI could not build, so agents are told to fix the build first.
import { EXIT, fail } from "../errors.mjs";
import { projectPath, request } from "../http.mjs";
import { write } from "../reports.mjs";
import { readInput, settings } from "../settings.mjs";

const LOG_TAIL_BYTES = 64 * 1024;

export async function buildFailed(values, _positionals, env, out) {
  const config = await settings(values, env, "arbiter build-failed", ["snapshots.write"]);
  if (!config.commit) fail("No commit: pass --commit (GITHUB_SHA is used on GitHub Actions).");
  let log = "";
  if (values["log-file"]) {
    const bytes = readInput(values["log-file"]);
    log = bytes.subarray(Math.max(0, bytes.byteLength - LOG_TAIL_BYTES)).toString("utf8");
  }
  const body = JSON.stringify({
    commit: config.commit,
    ...(config.branch ? { branch: config.branch } : {}),
    ...(config.runUrl ? { runUrl: config.runUrl } : {}),
    log,
  });
  const answer = await request(config, "POST", projectPath(config, "/builds"), body, "application/json");
  out(
    `Arbiter: recorded failed build #${answer.build.id} of ${config.project} at commit ${answer.build.commit}. Agents checking conformance will be told to fix the build first.`,
  );
  if (values.json) write(values.json, `${JSON.stringify(answer, null, 2)}\n`, "JSON answer");
  return EXIT.approved;
}
