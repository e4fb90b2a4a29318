// What the action's own scripts say to the runner: workflow commands, step outputs, the job summary. The
// verdict's annotations are not written here: the CLI prints them (--format github, rendered by the server with
// its escaping), and the action passes them through unchanged.
// https://docs.github.com/actions/reference/workflow-commands-for-github-actions
import { appendFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { logLine, terminalText } from "../bin/cli/safe-text.mjs";

/** The data part of a command (after "::"): the runner decodes %25, %0D and %0A, so those three are encoded. */
export function commandData(text) {
  return String(text)
    .replace(/%/g, "%25")
    .replace(/\r/g, "%0D")
    .replace(/\n/g, "%0A")
    .replace(/[\u0085\u2028\u2029]/g, " ");
}

/** A property value (title=...): also "," and ":", which end a property. */
export function commandProperty(text) {
  return commandData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** Hides a secret in every later line of the log; must come before anything that could print it. */
export function mask(secret) {
  console.log(`::add-mask::${commandData(secret)}`);
}

/** One error annotation. Each line of the message is shown as text: no control character is obeyed. */
export function errorCommand(title, message) {
  console.log(
    `::error title=${commandProperty(title)}::${commandData(String(message).split("\n").map(terminalText).join("\n"))}`,
  );
}

export function warningCommand(title, message) {
  console.log(`::warning title=${commandProperty(title)}::${commandData(terminalText(message))}`);
}

export function noticeCommand(title, message) {
  console.log(`::notice title=${commandProperty(title)}::${commandData(terminalText(message))}`);
}

/** A plain log line: no text inside can start a workflow command. */
export function info(line) {
  console.log(logLine(terminalText(line)));
}

/** The ways a step of the action ends: "could not verify" (2, the CLI's code) or a crossed threshold (1). */
export const EXIT = Object.freeze({ passed: 0, failed: 1, unverified: 2 });

/** Thrown by a step for a failure it explains; main() turns it into one ::error:: line and the exit code. */
export class ActionFailure extends Error {
  constructor(message, code = EXIT.unverified) {
    super(message);
    this.code = code;
  }
}

/** Runs a step: whatever fails ends as one ::error:: line and a non-zero exit, never a stack trace. */
export async function main(title, step) {
  try {
    process.exitCode = (await step()) ?? EXIT.passed;
  } catch (error) {
    if (error instanceof ActionFailure) {
      errorCommand(title, error.message);
      process.exitCode = error.code;
    } else {
      errorCommand(
        title,
        `The action failed unexpectedly: ${error?.message ?? error}. Please report it with this line.`,
      );
      process.exitCode = EXIT.unverified;
    }
  }
}

/** An environment file the runner provides (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY). */
function runnerFile(name) {
  const path = process.env[name];
  if (!path)
    throw new ActionFailure(
      `${name} is not set: this action runs on a GitHub Actions runner (2.297 or later), which provides it.`,
    );
  return path;
}

/** A step output; a value with a line break uses the runner's delimited form, with a delimiter it cannot contain. */
export function setOutput(name, value) {
  const text = String(value ?? "");
  if (!/[\r\n]/.test(text)) return appendFileSync(runnerFile("GITHUB_OUTPUT"), `${name}=${text}\n`);
  const delimiter = `arbiter_${randomUUID()}`;
  appendFileSync(runnerFile("GITHUB_OUTPUT"), `${name}<<${delimiter}\n${text}\n${delimiter}\n`);
}

/** GitHub refuses a step summary above 1 MiB; a longer one is cut at a line, with a pointer to the rest. */
const SUMMARY_LIMIT = 1024 * 1024 - 1024;

export function appendSummary(markdown, rest) {
  appendFileSync(runnerFile("GITHUB_STEP_SUMMARY"), `${shortened(markdown, SUMMARY_LIMIT, rest)}\n`);
}

/** Markdown cut to at most `limit` characters at a line break, ending with where to read all of it. */
export function shortened(markdown, limit, rest) {
  if (markdown.length <= limit) return markdown;
  const tail = `\n\n_Shortened to fit GitHub's limit: ${rest}_\n`;
  const cut = markdown.lastIndexOf("\n", limit - tail.length);
  return markdown.slice(0, Math.max(cut, 0)) + tail;
}
