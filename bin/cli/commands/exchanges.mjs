// arbiter exchanges: check recorded traffic (HAR or NDJSON) against the contract.
import { EXIT, fail } from "../errors.mjs";
import { projectPath, query, request } from "../http.mjs";
import { deliver, reportChoice, reportQuery } from "../reports.mjs";
import { readInput, recordingType, settings, versionOption } from "../settings.mjs";
import { plural } from "../text.mjs";

export async function exchanges(values, positionals, env, out) {
  const config = await settings(values, env, "arbiter exchanges", ["snapshots.write"]);
  const file = positionals[0];
  if (!file) fail("Name the recorded traffic to check (a HAR file or NDJSON, or - for standard input).");
  const bytes = readInput(file);
  const choice = reportChoice(values);
  const path = projectPath(
    config,
    `/exchanges${query({ contractVersion: versionOption(values, "contract-version"), commit: config.commit, branch: config.branch, runUrl: config.runUrl, ...reportQuery(choice, values, file) })}`,
  );
  const answer = await request(config, "POST", path, bytes, recordingType(file));
  const run = answer.run;
  const heading = `Arbiter: ${config.project} recorded traffic run #${run.id} (${plural(run.exchangeCount, "exchange")}${run.commit ? `, commit ${run.commit}` : ""}) against contract v${answer.contract.version}${answer.contract.label ? ` (${answer.contract.label})` : ""}`;
  deliver(choice, heading, answer, out);
  if (!choice.print && answer.verdict.totalViolations > (answer.verdict.violations ?? []).length)
    out(
      `  (${answer.verdict.totalViolations} violations in all; the first ${answer.verdict.violations.length} are listed)`,
    );
  return answer.verdict.approved ? EXIT.approved : EXIT.rejected;
}
