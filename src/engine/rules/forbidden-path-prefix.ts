import { z } from "zod";
import { locate, type ConstitutionRule } from "./rule";
import { canonicalPath } from "../normalize/normalize-document";

const options = z.object({
  prefixes: z.array(z.string().regex(/^\/[^\s]*$/, "a prefix is a path starting with /, e.g. /internal")).min(1),
});

/** No operation lives under a forbidden prefix such as /internal (checked with the server base path applied too). */
export const forbiddenPathPrefix: ConstitutionRule<z.infer<typeof options>> = {
  kind: "constitution",
  id: "forbidden-path-prefix",
  defaultSeverity: "error",
  purpose: "No operation is exposed under a forbidden path prefix such as /internal.",
  enforces: "policies/constitution.json forbidden-path-prefix.prefixes",
  options,
  check(context, { prefixes }) {
    const normalized = prefixes.map((prefix) => canonicalPath(prefix));
    const below = normalized.map((prefix) => (prefix === "/" ? "/" : `${prefix}/`));
    for (const operation of context.document.operations) {
      // The index holds both canonical paths (the template, and with the server base path applied). Written out
      // without a helper: this runs for every operation of every upload, mostly before it is optimized.
      const { localPath, fullPath } = operation;
      let hit: string | undefined;
      for (let index = 0; index < normalized.length && hit === undefined; index++) {
        const prefix = normalized[index] as string;
        const start = below[index] as string;
        if (localPath === prefix || localPath.startsWith(start) || fullPath === prefix || fullPath.startsWith(start))
          hit = prefix;
      }
      if (hit !== undefined)
        context.report(
          locate(operation),
          `${operation.label} is under the forbidden prefix ${hit}: internal endpoints must not be part of the public API`,
        );
    }
  },
};
