// The action's last step: fail the job when the verdict crosses the `fail-on` threshold. It runs after the
// comment, so a rejected pull request still gets its comment. (A verdict that could not be obtained has already
// failed the first step.)
import { plural } from "../bin/cli/text.mjs";
import { input } from "./inputs.mjs";
import { ActionFailure, EXIT, info, main } from "./workflow.mjs";

await main("Arbiter", () => {
  const failOn = input("fail-on") || "error";
  const verdict = process.env.ARBITER_VERDICT ?? "";
  const errors = Number(process.env.ARBITER_ERRORS ?? 0);
  const warnings = Number(process.env.ARBITER_WARNINGS ?? 0);
  const breaking = Number(process.env.ARBITER_BREAKING_CHANGES ?? 0);
  const where = `Full verdict: ${process.env.ARBITER_VERDICT_URL}`;
  if (verdict !== "approved" && verdict !== "rejected")
    throw new ActionFailure("The verdict step left no verdict: see its error above.");
  const reasons = [];
  if (failOn !== "never") {
    if (verdict === "rejected") reasons.push(`the verdict is rejected (${plural(errors, "error")})`);
    if (breaking > 0)
      reasons.push(`${plural(breaking, "breaking change")} for clients of the previous contract version`);
    if (failOn === "warning" && warnings > 0) reasons.push(plural(warnings, "warning"));
  }
  if (reasons.length > 0)
    throw new ActionFailure(`Failed with fail-on: ${failOn}: ${reasons.join("; ")}. ${where}`, EXIT.failed);
  info(
    `Arbiter: passed with fail-on: ${failOn} (${verdict}, ${plural(errors, "error")}, ${plural(warnings, "warning")}${breaking ? `, ${plural(breaking, "breaking change")}` : ""}).`,
  );
});
