import { z } from "zod";
import { locate, type ConstitutionRule } from "./rule";
import { contentOf, responsesOf } from "./support/operation-parts";
import { mediaTypeEssence } from "./support/media-types";

const options = z.object({
  methods: z.array(z.string().regex(/^[A-Za-z]+$/, "an HTTP method such as POST")).min(1),
  mediaType: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, "a media type such as application/problem+json"),
});

/** Every write operation declares an error response (4XX, 5XX or default) in the configured media type. */
export const writeOperationProblemJson: ConstitutionRule<z.infer<typeof options>> = {
  kind: "constitution",
  id: "write-operation-problem-json",
  defaultSeverity: "error",
  purpose: "Every write operation declares an error response as application/problem+json (RFC 9457).",
  enforces: "https://www.rfc-editor.org/rfc/rfc9457",
  options,
  check(context, { methods, mediaType }) {
    const writes = new Set(methods.map((method) => method.toUpperCase()));
    const wanted = mediaTypeEssence(mediaType);
    for (const operation of context.document.operations) {
      if (!writes.has(operation.method)) continue;
      const declares = Object.entries(responsesOf(operation)).some(([status, response]) => {
        if (!/^([45]|default)/i.test(status)) return false;
        return Object.keys(contentOf(response, context.document.resolver)).some((key) => mediaTypeEssence(key) === wanted);
      });
      if (!declares) context.report(locate(operation, "/responses"), `${operation.label} declares no error response (4XX, 5XX or default) with ${mediaType}`);
    }
  },
};
