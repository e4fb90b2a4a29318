import { z } from "zod";
import { locate, type ConstitutionRule } from "./rule";
import { compileOperationPattern, isOperationPattern, type OperationPattern } from "../diff/operation-pattern";

// Patterns are compiled once, when the policy is loaded: compiled per verdict, each check called fresh closures,
// and the optimized code that had inlined them was thrown away with them after every upload.
const options = z.object({
  except: z
    .array(z.string().refine(isOperationPattern, 'an operation pattern such as "GET /health" or "* /public/**"'))
    .default([])
    .transform((patterns): readonly OperationPattern[] => patterns.map(compileOperationPattern)),
});

/** Every operation requires authentication, except the operations listed. */
export const operationSecurity: ConstitutionRule<z.infer<typeof options>> = {
  kind: "constitution",
  id: "operation-security",
  defaultSeverity: "warning",
  purpose: "Every operation declares a security requirement (no anonymous access) unless explicitly excepted.",
  enforces: "https://spec.openapis.org/oas/v3.1.0.html#security-requirement-object",
  options,
  check(context, { except: exceptions }) {
    for (const operation of context.document.operations) {
      // The index holds each operation's canonical path: no path is normalised again per pattern.
      let excepted = false;
      for (let index = 0; index < exceptions.length && !excepted; index++)
        excepted = (exceptions[index] as OperationPattern).matchesCanonical(operation.method, operation.localPath);
      if (excepted) continue;
      const security = operation.security ?? [];
      if (security.length === 0)
        context.report(locate(operation, "/security"), `${operation.label} declares no security requirement`);
      else if (security.some((requirement) => Object.keys(requirement).length === 0)) {
        context.report(
          locate(operation, "/security"),
          `${operation.label} allows anonymous access (an empty security requirement)`,
        );
      }
    }
  },
};
