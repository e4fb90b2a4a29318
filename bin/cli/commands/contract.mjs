// arbiter contract: upload a new contract version. Says plainly what it breaks for clients of the version it
// was compared with and whether it became active; --fail-on-breaking makes breaking changes fail CI (exit 1).
import { EXIT } from "../errors.mjs";
import { projectPath, query, request } from "../http.mjs";
import { logLine, terminalText } from "../safe-text.mjs";
import { deliver, reportChoice, reportQuery, summaryText } from "../reports.mjs";
import { contentTypeOf, readInput, settings } from "../settings.mjs";
import { plural } from "../text.mjs";

/** For a server that does not word it itself: the same statement from the answer's fields. */
function breakingLine(answer, change) {
  const changes = `${plural(change.count, "breaking change")} for clients of v${change.comparedWithVersion}`;
  return answer.activated === false
    ? `${changes}; v${answer.contract.version} is stored but NOT active.`
    : `${changes}; v${answer.contract.version} is active.`;
}

export async function contract(values, positionals, env, out) {
  const config = await settings(values, env, "arbiter contract", ["contracts.write"]);
  const file = positionals[0];
  const bytes = readInput(file);
  const choice = reportChoice(values);
  const path = projectPath(
    config,
    `/contracts${query({ label: values.label, create: values.create ? "true" : undefined, ...reportQuery(choice, values, file) })}`,
  );
  const answer = await request(config, "POST", path, bytes, contentTypeOf(file, bytes));
  const c = answer.contract;
  const name = `v${c.version}${c.label ? ` (${c.label})` : ""}`;
  if (answer.projectCreated) out(`Arbiter: created the project ${config.project} with this upload.`);
  deliver(
    choice,
    `Arbiter: ${config.project} contract ${name} ${answer.activated === false ? "(stored, NOT active)" : "(active)"}: constitution check`,
    answer,
    out,
  );
  const change = answer.breakingChanges;
  const breaking = change ? change.count : 0;
  if (change && !choice.print) {
    const listed = summaryText(`Changes for clients of v${change.comparedWithVersion}`, change)
      .split("\n")
      .slice(1)
      .join("\n");
    out(
      `${breaking === 0 ? `No breaking changes for clients of v${change.comparedWithVersion}.` : answer.activation ? logLine(terminalText(answer.activation)) : breakingLine(answer, change)}\n${listed}`,
    );
  } else if (answer.activation && !choice.print) out(logLine(terminalText(answer.activation)));
  if (breaking > 0 && values["fail-on-breaking"]) {
    out(
      `--fail-on-breaking: exit 1 because of ${plural(breaking, "breaking change")} for clients of v${change.comparedWithVersion}.`,
    );
    return EXIT.rejected;
  }
  return answer.verdict.approved ? EXIT.approved : EXIT.rejected;
}
