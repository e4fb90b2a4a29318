// Command-line flags (node:util parseArgs).
import { parseArgs } from "node:util";
import { fail } from "./errors.mjs";

export function options(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
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
        resource: { type: "string" },
        "no-browser": { type: "boolean" },
        whoami: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
      },
    });
  } catch (error) {
    fail(`${error.message}\nRun "arbiter --help" for usage.`);
  }
  return parsed;
}
