// arbiter snapshot: upload CI's build of the implementation's document and report its verdict.
import { EXIT, fail } from "../errors.mjs";
import { projectPath, query, request } from "../http.mjs";
import { deliver, reportChoice, reportQuery } from "../reports.mjs";
import { contentTypeOf, readInput, settings } from "../settings.mjs";

export async function snapshot(values, positionals, env, out) {
  const config = await settings(values, env, "arbiter snapshot", ["snapshots.write"]);
  if (!config.commit) fail("No commit: pass --commit (GITHUB_SHA is used on GitHub Actions).");
  const file = positionals[0];
  const bytes = readInput(file);
  const choice = reportChoice(values);
  const answer = await request(
    config,
    "POST",
    projectPath(
      config,
      `/snapshots${query({ commit: config.commit, branch: config.branch, runUrl: config.runUrl, ...reportQuery(choice, values, file) })}`,
    ),
    bytes,
    contentTypeOf(file, bytes),
  );
  const s = answer.snapshot;
  const heading = `Arbiter: ${config.project} snapshot #${s.id} (commit ${s.commit}) against contract v${answer.contract.version}${answer.contract.label ? ` (${answer.contract.label})` : ""}`;
  deliver(choice, heading, answer, out);
  return answer.verdict.approved ? EXIT.approved : EXIT.rejected;
}
