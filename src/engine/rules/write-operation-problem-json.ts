import { z } from "zod";
import { locate, type ConstitutionRule } from "./rule";
import { contentOf, responsesOf } from "../diff/operation-parts";
import { mediaTypeEssence } from "../diff/media-types";
import type { RefResolver } from "../normalize/ref-resolver";

const options = z
  .object({
    methods: z.array(z.string().regex(/^[A-Za-z]+$/, "an HTTP method such as POST")).min(1),
    mediaType: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, "a media type such as application/problem+json"),
  })
  // Read once, when the policy is loaded, not at every verdict.
  .transform((parsed) => ({
    ...parsed,
    writes: new Set(parsed.methods.map((method) => method.toUpperCase())),
    wanted: mediaTypeEssence(parsed.mediaType),
  }));

/**
 * Whether `response` declares a media type whose essence is `wanted`. A document names a handful of media types,
 * each in hundreds of responses: `isWanted` reads each once. A module function, not a closure made per check:
 * inlined, a fresh closure tied the optimized check to one verdict.
 */
function declaresIn(response: unknown, resolver: RefResolver, wanted: string, isWanted: Map<string, boolean>): boolean {
  for (const key in contentOf(response, resolver)) {
    let wantedKey = isWanted.get(key);
    if (wantedKey === undefined) {
      wantedKey = mediaTypeEssence(key) === wanted;
      isWanted.set(key, wantedKey);
    }
    if (wantedKey) return true;
  }
  return false;
}

/** Every write operation declares an error response (4XX, 5XX or default) in the configured media type. */
export const writeOperationProblemJson: ConstitutionRule<z.infer<typeof options>> = {
  kind: "constitution",
  id: "write-operation-problem-json",
  defaultSeverity: "error",
  purpose: "Every write operation declares an error response as application/problem+json (RFC 9457).",
  enforces: "https://www.rfc-editor.org/rfc/rfc9457",
  options,
  check(context, { mediaType, writes, wanted }) {
    const isWanted = new Map<string, boolean>();
    const resolver = context.document.resolver;
    for (const operation of context.document.operations) {
      if (!writes.has(operation.method)) continue;
      let declares = false;
      const responses = responsesOf(operation);
      for (const status in responses) {
        // /^([45]|default)/i (4XX, 5XX or default), without a regular expression per response.
        const first = status.charCodeAt(0);
        const isError =
          first === 52 || first === 53 || (status.length >= 7 && status.slice(0, 7).toLowerCase() === "default");
        if (isError && declaresIn(responses[status], resolver, wanted, isWanted)) {
          declares = true;
          break;
        }
      }
      if (!declares)
        context.report(
          locate(operation, "/responses"),
          `${operation.label} declares no error response (4XX, 5XX or default) with ${mediaType}`,
        );
    }
  },
};
