/**
 * The CLI's sources, bundled into the Worker as text (the Text rule for the files below bin/ in wrangler.toml) and joined into one
 * file by cli-bundle.ts. A module missing here fails the bundle with its name (and test/node/cli-bundle.test.ts
 * checks that this list is exactly the files under bin/).
 */
import arbiter from "../../bin/arbiter.mjs";
import commandBreaks from "../../bin/cli/commands/breaks.mjs";
import commandBuildFailed from "../../bin/cli/commands/build-failed.mjs";
import commandCheck from "../../bin/cli/commands/check.mjs";
import commandContract from "../../bin/cli/commands/contract.mjs";
import commandDiff from "../../bin/cli/commands/diff.mjs";
import commandExchanges from "../../bin/cli/commands/exchanges.mjs";
import commandLogin from "../../bin/cli/commands/login.mjs";
import commandLogout from "../../bin/cli/commands/logout.mjs";
import commandMembers from "../../bin/cli/commands/members.mjs";
import commandOrg from "../../bin/cli/commands/org.mjs";
import commandSnapshot from "../../bin/cli/commands/snapshot.mjs";
import commandToken from "../../bin/cli/commands/token.mjs";
import credentials from "../../bin/cli/credentials.mjs";
import errors from "../../bin/cli/errors.mjs";
import help from "../../bin/cli/help.mjs";
import http from "../../bin/cli/http.mjs";
import identity from "../../bin/cli/identity.mjs";
import loopback from "../../bin/cli/loopback.mjs";
import oauth from "../../bin/cli/oauth.mjs";
import options from "../../bin/cli/options.mjs";
import reports from "../../bin/cli/reports.mjs";
import safeText from "../../bin/cli/safe-text.mjs";
import repository from "../../bin/cli/repository.mjs";
import scopes from "../../bin/cli/scopes.mjs";
import settings from "../../bin/cli/settings.mjs";
import suggest from "../../bin/cli/suggest.mjs";
import text from "../../bin/cli/text.mjs";
import type { CliSources } from "./cli-bundle";

export const CLI_SOURCES: CliSources = Object.freeze({
  "arbiter.mjs": arbiter,
  "cli/commands/breaks.mjs": commandBreaks,
  "cli/commands/build-failed.mjs": commandBuildFailed,
  "cli/commands/check.mjs": commandCheck,
  "cli/commands/contract.mjs": commandContract,
  "cli/commands/diff.mjs": commandDiff,
  "cli/commands/exchanges.mjs": commandExchanges,
  "cli/commands/login.mjs": commandLogin,
  "cli/commands/members.mjs": commandMembers,
  "cli/commands/org.mjs": commandOrg,
  "cli/commands/logout.mjs": commandLogout,
  "cli/commands/snapshot.mjs": commandSnapshot,
  "cli/commands/token.mjs": commandToken,
  "cli/credentials.mjs": credentials,
  "cli/errors.mjs": errors,
  "cli/help.mjs": help,
  "cli/http.mjs": http,
  "cli/identity.mjs": identity,
  "cli/loopback.mjs": loopback,
  "cli/oauth.mjs": oauth,
  "cli/options.mjs": options,
  "cli/reports.mjs": reports,
  "cli/safe-text.mjs": safeText,
  "cli/repository.mjs": repository,
  "cli/scopes.mjs": scopes,
  "cli/settings.mjs": settings,
  "cli/suggest.mjs": suggest,
  "cli/text.mjs": text,
});
