/**
 * zod's issues in plain words: "commit is required", "limit must be a number", "status must be one of PAID,
 * PENDING". zod's own texts ("Invalid input: expected string, received undefined") name types, not what to do.
 * A message a schema wrote itself (a regex or refine message) is kept: it was written for a person.
 * For query parameters the sentence also says how to pass the value: "commit is required: pass ?commit=<sha>".
 */
import type { z } from "zod";

export interface HumaniseOptions {
  /** Where the fields are: query parameters get a "pass ?name=..." hint. */
  where?: "query" | "body" | "arguments";
  /** The placeholder shown for a query parameter, e.g. { commit: "<sha>" }; default `<value>`. */
  placeholders?: Record<string, string>;
  /** At most this many issues are described (default 5). */
  max?: number;
}

type Issue = z.core.$ZodIssue;

// zod 4's default English messages start with these; anything else was written by the schema's author.
const ZOD_DEFAULT =
  /^(Invalid input|Invalid option|Invalid string|Invalid [a-z]+:|Too small|Too big|Unrecognized key|Invalid element|Invalid key|Invalid value|Invalid)/;

const ARTICLE: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "a list",
  bigint: "an integer",
  date: "a date",
};

function quoted(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function sizeRule(
  issue: Issue & { origin?: string; minimum?: unknown; maximum?: unknown; inclusive?: boolean },
  small: boolean,
): string {
  const bound = Number(small ? issue.minimum : issue.maximum);
  const exclusive = issue.inclusive === false;
  if (issue.origin === "string") {
    if (small && bound === 1 && !exclusive) return "must not be empty";
    return small ? `must be at least ${bound} characters long` : `must be at most ${bound} characters long`;
  }
  if (issue.origin === "array" || issue.origin === "set")
    return small ? `must have at least ${bound} items` : `must have at most ${bound} items`;
  if (exclusive) return small ? `must be greater than ${bound}` : `must be less than ${bound}`;
  return small ? `must be at least ${bound}` : `must be at most ${bound}`;
}

/** One issue as "<field> <rule>", without the field name when the issue is about the whole value. */
function rule(issue: Issue): { text: string; required: boolean } {
  const custom = issue.message && !ZOD_DEFAULT.test(issue.message);
  switch (issue.code) {
    case "invalid_type": {
      if (/received undefined$/.test(issue.message)) return { text: "is required", required: true };
      if (custom) return { text: `: ${issue.message}`, required: false };
      return { text: `must be ${ARTICLE[issue.expected] ?? issue.expected}`, required: false };
    }
    case "too_small":
    case "too_big":
      return { text: custom ? `: ${issue.message}` : sizeRule(issue, issue.code === "too_small"), required: false };
    case "invalid_value":
      return {
        text: custom ? `: ${issue.message}` : `must be one of ${issue.values.map(quoted).join(", ")}`,
        required: false,
      };
    case "unrecognized_keys":
      return {
        text: `has unknown field${issue.keys.length === 1 ? "" : "s"} ${issue.keys.join(", ")}: remove ${issue.keys.length === 1 ? "it" : "them"}`,
        required: false,
      };
    case "invalid_format":
      return {
        text: custom
          ? `: ${issue.message}`
          : `must be ${issue.format === "regex" ? `text matching ${String((issue as { pattern?: string }).pattern ?? "the pattern")}` : `a valid ${issue.format}`}`,
        required: false,
      };
    default:
      return { text: `: ${issue.message}`, required: false };
  }
}

function fieldName(issue: Issue, where: HumaniseOptions["where"]): string {
  if (issue.path.length) return issue.path.map(String).join(".");
  return where === "query" ? "the query" : where === "body" ? "the body" : "(arguments)";
}

export function humaniseIssue(issue: Issue, options: HumaniseOptions = {}): string {
  const field = fieldName(issue, options.where);
  const { text, required } = rule(issue);
  const sentence = text.startsWith(":") ? `${field}${text}` : `${field} ${text}`;
  if (options.where !== "query" || !issue.path.length || issue.code === "unrecognized_keys") return sentence;
  const name = String(issue.path[0]);
  const placeholder = options.placeholders?.[name] ?? "<value>";
  return `${sentence}${required ? ":" : ";"} pass ?${name}=${placeholder}`;
}

export function humaniseIssues(error: z.ZodError, options: HumaniseOptions = {}): string {
  const issues = error.issues.slice(0, options.max ?? 5).map((issue) => humaniseIssue(issue, options));
  const more = error.issues.length - issues.length;
  return issues.join("; ") + (more > 0 ? `; and ${more} more` : "");
}
