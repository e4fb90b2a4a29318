// arbiter check: a local build's document against the contract, not stored.
import { EXIT } from "../errors.mjs";
import { projectPath, query, request } from "../http.mjs";
import { deliver, reportChoice, reportQuery } from "../reports.mjs";
import { contentTypeOf, readInput, settings, versionOption } from "../settings.mjs";

export async function check(values, positionals, env, out) {
  const config = await settings(values, env, "arbiter check", ["contracts.read"]);
  const file = positionals[0];
  const bytes = readInput(file);
  const choice = reportChoice(values);
  const answer = await request(
    config,
    "POST",
    projectPath(
      config,
      `/drafts${query({ contractVersion: versionOption(values, "contract-version"), ...reportQuery(choice, values, file) })}`,
    ),
    bytes,
    contentTypeOf(file, bytes),
  );
  const heading = `Arbiter: ${config.project} draft ${file} against contract v${answer.contract.version}${answer.contract.label ? ` (${answer.contract.label})` : ""} (not stored; CI's snapshot is the verdict of record)`;
  deliver(choice, heading, answer, out);
  return answer.verdict.approved ? EXIT.approved : EXIT.rejected;
}
