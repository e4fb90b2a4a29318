// Command-line flags (node:util parseArgs); a mistyped flag is answered with the closest one.
import { parseArgs } from "node:util";
import { fail } from "./errors.mjs";
import { closest } from "./suggest.mjs";
import { printable } from "./text.mjs";

const OPTIONS = Object.freeze({
  url: { type: "string" },
  server: { type: "string" },
  token: { type: "string" },
  project: { type: "string" },
  commit: { type: "string" },
  branch: { type: "string" },
  "run-url": { type: "string" },
  label: { type: "string" },
  junit: { type: "string" },
  markdown: { type: "string" },
  json: { type: "string" },
  format: { type: "string" },
  "out-json": { type: "string" },
  "out-markdown": { type: "string" },
  "out-junit": { type: "string" },
  "out-sarif": { type: "string" },
  "out-github": { type: "string" },
  artifact: { type: "string" },
  "contract-version": { type: "string" },
  from: { type: "string" },
  to: { type: "string" },
  "log-file": { type: "string" },
  timeout: { type: "string" },
  scope: { type: "string", multiple: true },
  scopes: { type: "string", multiple: true },
  create: { type: "boolean" },
  "fail-on-breaking": { type: "boolean" },
  resource: { type: "string" },
  whoami: { type: "boolean" },
  "no-browser": { type: "boolean" },
  "dry-run": { type: "boolean" },
  role: { type: "string" },
  reason: { type: "string" },
  owner: { type: "string" },
  expires: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
});

/** "Unknown option '--fial-on-breaking'" gets "did you mean --fail-on-breaking?". */
function unknownFlagAdvice(error) {
  if (error?.code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return "";
  const flag = /'(-{1,2}[^'=]+)/.exec(error.message)?.[1];
  if (!flag?.startsWith("--")) return "";
  const suggestion = closest(flag.slice(2), Object.keys(OPTIONS));
  return suggestion ? ` Did you mean --${suggestion}?` : "";
}

export function options(argv) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    const flag = /'(-{1,2}[^'=]+)/.exec(error.message)?.[1];
    const message =
      error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && flag
        ? `Unknown option ${printable(flag, 80)}.${unknownFlagAdvice(error)}`
        : error.message;
    fail(`${message}\nRun "arbiter --help" for usage.`);
  }
  return parsed;
}
