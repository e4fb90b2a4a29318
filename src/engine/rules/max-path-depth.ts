import { z } from "zod";
import { locate, type ConstitutionRule } from "./rule";

/** path.split("/").filter(non-empty).length, without an array per operation of every upload. */
function countSegments(path: string): number {
  let count = 0;
  let inSegment = false;
  for (let index = 0; index < path.length; index++) {
    const slash = path.charCodeAt(index) === 47;
    if (!slash && !inSegment) count++;
    inSegment = !slash;
  }
  return count;
}

const options = z.object({ maxSegments: z.number().int().min(1).max(64) });

/** Path templates stay shallow: at most `maxSegments` segments (the server base path not counted). */
export const maxPathDepth: ConstitutionRule<z.infer<typeof options>> = {
  kind: "constitution",
  id: "max-path-depth",
  defaultSeverity: "warning",
  purpose: "Path templates have at most the configured number of segments.",
  enforces: "policies/constitution.json max-path-depth.maxSegments",
  options,
  check(context, { maxSegments }) {
    for (const operation of context.document.operations) {
      const segments = countSegments(operation.path);
      if (segments > maxSegments)
        context.report(
          locate(operation),
          `${operation.label} has ${segments} path segments; the constitution allows at most ${maxSegments}`,
        );
    }
  },
};
