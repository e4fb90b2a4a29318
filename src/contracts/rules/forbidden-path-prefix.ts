import { z } from "zod";
import { locate, type ConstitutionRule } from "./rule";
import { canonicalPath } from "../normalize-document";

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
    for (const operation of context.document.operations) {
      const candidates = [canonicalPath(operation.path), canonicalPath(context.document.basePath + operation.path)];
      const hit = normalized.find((prefix) => candidates.some((path) => path === prefix || path.startsWith(prefix === "/" ? "/" : `${prefix}/`)));
      if (hit !== undefined) context.report(locate(operation), `${operation.label} is under the forbidden prefix ${hit}: internal endpoints must not be part of the public API`);
    }
  },
};
