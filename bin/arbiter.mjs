#!/usr/bin/env node
// Arbiter CI client: uploads an implementation's OpenAPI document (a snapshot) or a failed build to an Arbiter
// server and reports the verdict; on a person's machine it also logs in through the browser (OAuth) and hands
// out a current access token to scripts. Zero dependencies: Node 18.3 or later (node:util parseArgs arrived in
// 18.3.0; global fetch in 18.0, AbortSignal.timeout in 17.3, server.closeAllConnections in 18.2).
// Exit codes: 0 approved (or recorded), 1 rejected, 2 could not verify (usage, network, auth, unknown project,
// invalid document, ...); login, token and logout exit 0 on success and 2 on failure.
// This file is the entry point: one module per command in cli/commands/, shared helpers in cli/. The server
// serves all of it as one file at GET /cli/arbiter.mjs (src/api/cli-bundle.ts joins the modules).
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { breaks } from "./cli/commands/breaks.mjs";
import { buildFailed } from "./cli/commands/build-failed.mjs";
import { check } from "./cli/commands/check.mjs";
import { contract } from "./cli/commands/contract.mjs";
import { diff } from "./cli/commands/diff.mjs";
import { exchanges } from "./cli/commands/exchanges.mjs";
import { login } from "./cli/commands/login.mjs";
import { logout } from "./cli/commands/logout.mjs";
import { members } from "./cli/commands/members.mjs";
import { org } from "./cli/commands/org.mjs";
import { snapshot } from "./cli/commands/snapshot.mjs";
import { token } from "./cli/commands/token.mjs";
import { EXIT, Unverified, fail } from "./cli/errors.mjs";
import { HELP, VERSION } from "./cli/help.mjs";
import { options } from "./cli/options.mjs";

export { EXIT } from "./cli/errors.mjs";
export { credentialsFile } from "./cli/credentials.mjs";
export { summaryText } from "./cli/reports.mjs";

const COMMANDS = {
  snapshot,
  contract,
  exchanges,
  check,
  diff,
  "build-failed": buildFailed,
  breaks,
  login,
  token,
  logout,
  org,
  members,
};
const SIGN_IN_COMMANDS = new Set(["login", "token", "logout", "org", "members"]);

export async function main(
  argv = process.argv.slice(2),
  env = process.env,
  out = (line) => console.log(line),
  err = (line) => console.error(line),
) {
  let command;
  try {
    const { values, positionals } = options(argv);
    if (values.version) {
      out(VERSION);
      return EXIT.approved;
    }
    [command] = positionals;
    const rest = positionals.slice(1);
    if (values.help || !command) {
      out(HELP);
      return values.help ? EXIT.approved : EXIT.unverified;
    }
    const run = COMMANDS[command];
    if (!run)
      fail(`Unknown command "${command}". Commands: ${Object.keys(COMMANDS).join(", ")}. Run "arbiter --help".`);
    return await run(values, rest, env, out, err);
  } catch (error) {
    // login, token and logout verify nothing: their failures are not worded as a verdict.
    const prefix = SIGN_IN_COMMANDS.has(command) ? `arbiter ${command}:` : "arbiter: could not verify:";
    if (error instanceof Unverified) {
      err(`${prefix} ${error.message}`);
      return EXIT.unverified;
    }
    err(`${prefix} unexpected error: ${error?.message ?? error}`);
    return EXIT.unverified;
  }
}

function invokedDirectly() {
  try {
    return Boolean(process.argv[1]) && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
if (invokedDirectly()) process.exitCode = await main();
