import type { z } from "zod";

/** Names where an upstream answer departs from the operation's shape, without echoing its values. */
export function describeZodIssuesForUpstream(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join(".") || "(root)"}: ${issue.code.replace(/_/g, " ")}`)
    .join("; ");
}
