// arbiter contract: upload a new contract version.
import { EXIT } from "../errors.mjs";
import { projectPath, query, request } from "../http.mjs";
import { logLine, terminalText } from "../safe-text.mjs";
import { deliver, reportChoice, reportQuery, summaryText } from "../reports.mjs";
import { contentTypeOf, readInput, settings } from "../settings.mjs";
import { plural } from "../text.mjs";

export async function contract(values, positionals, env, out) {
  const config = await settings(values, env);
  const file = positionals[0];
  const bytes = readInput(file);
  const choice = reportChoice(values);
  const answer = await request(config, "POST", projectPath(config, `/contracts${query({ label: values.label, ...reportQuery(choice, values, file) })}`), bytes, contentTypeOf(file, bytes));
  const c = answer.contract;
  const state = answer.activated === false ? "is stored but NOT active (it breaks clients of the active version; see below)" : "is now active";
  const heading = `Arbiter: ${config.project} contract v${c.version}${c.label ? ` (${c.label})` : ""} ${state}; constitution check`;
  deliver(choice, heading, answer, out);
  const change = answer.breakingChanges;
  if (change && !choice.print) out(summaryText(`Changes for clients of v${change.comparedWithVersion}: ${plural(change.count, "breaking change")}`, change));
  if (answer.activation) out(logLine(terminalText(answer.activation)));
  return answer.verdict.approved ? EXIT.approved : EXIT.rejected;
}
