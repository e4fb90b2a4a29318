import { z } from "zod";
import { locate, type ConstitutionRule } from "./rule";

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
      const segments = operation.path.split("/").filter((segment) => segment !== "").length;
      if (segments > maxSegments) context.report(locate(operation), `${operation.label} has ${segments} path segments; the constitution allows at most ${maxSegments}`);
    }
  },
};
