import { z } from "zod";
import { locate, type ConstitutionRule } from "./rule";

function isRegExp(text: string): boolean {
  try {
    new RegExp(text, "u");
    return true;
  } catch {
    return false;
  }
}

const options = z
  .object({
    pattern: z.string().refine(isRegExp, "a valid regular expression"),
    /** Off by default: ASP.NET Core and others generate no operationIds, which would fail every snapshot. */
    required: z.boolean().default(false),
  })
  // Compiled once, when the policy is loaded (without the g or y flag, test() keeps no state between calls).
  .transform((parsed) => ({ ...parsed, expression: new RegExp(parsed.pattern, "u") }));

/** operationIds follow the naming pattern; when `required`, every operation has one. */
export const operationIdPattern: ConstitutionRule<z.infer<typeof options>> = {
  kind: "constitution",
  id: "operation-id-pattern",
  defaultSeverity: "warning",
  purpose: "operationIds follow the organization's naming pattern (and exist, when required).",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#operation-object",
  options,
  check(context, { pattern, required, expression }) {
    for (const operation of context.document.operations) {
      const id = operation.operation.operationId;
      if (typeof id !== "string") {
        if (required) context.report(locate(operation), `${operation.label} has no operationId`);
      } else if (!expression.test(id)) {
        context.report(locate(operation, "/operationId"), `operationId "${id}" does not match ${pattern}`);
      }
    }
  },
};
