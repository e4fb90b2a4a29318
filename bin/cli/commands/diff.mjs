// arbiter diff: what a contract change breaks for clients of a stored version.
import { EXIT, fail } from "../errors.mjs";
import { projectPath, query, request } from "../http.mjs";
import { deliver, reportChoice, reportQuery } from "../reports.mjs";
import { contentTypeOf, readInput, settings, versionOption } from "../settings.mjs";
import { plural } from "../text.mjs";

export async function diff(values, positionals, env, out) {
  const config = await settings(values, env, "arbiter diff", ["contracts.read"]);
  const file = positionals[0];
  const to = versionOption(values, "to");
  if ((file === undefined) === (to === undefined))
    fail(
      "Compare either an edited contract file (arbiter diff FILE) or a stored version (--to <n>), not both and not neither.",
    );
  const bytes = file === undefined ? undefined : readInput(file);
  const choice = reportChoice(values);
  const path = projectPath(
    config,
    `/contracts/compare${query({ from: versionOption(values, "from"), to, ...reportQuery(choice, values, file) })}`,
  );
  const answer = await request(config, "POST", path, bytes, bytes ? contentTypeOf(file, bytes) : undefined);
  const heading = `Arbiter: ${config.project} ${to ? `v${to}` : file} for clients of v${answer.from.version}: ${plural(answer.breakingChanges.count, "breaking change")}`;
  deliver(choice, heading, answer, out);
  return answer.verdict.approved ? EXIT.approved : EXIT.rejected;
}
