import type { z } from "zod";

/** A policy file that cannot be used. The message names the file and the field so an operator can fix it. */
export class PolicyError extends Error {
  override readonly name = "PolicyError";
  constructor(
    readonly file: string,
    readonly field: string,
    readonly problem: string,
  ) {
    super(`policies/${file}: ${field || "(file)"}: ${problem}`);
  }
}

/** Turns the first zod issue into a PolicyError naming the offending field path. */
export function policyErrorFromZod(file: string, error: z.ZodError): PolicyError {
  const issue = error.issues[0];
  const field = issue ? issue.path.map(String).join(".") : "";
  return new PolicyError(file, field, issue?.message ?? "invalid");
}
