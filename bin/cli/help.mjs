// The version and the --help text.

export const VERSION = "0.1.0";

export const HELP = `arbiter ${VERSION}: spec arbitration for CI

Usage:
  arbiter snapshot <openapi-file> --project <name> [--commit <sha>] [--branch <name>] [--run-url <url>]
                   [--junit <file>] [--markdown <file>] [--json <file>]
  arbiter contract <openapi-file> --project <name> [--label <text>] [--create] [--fail-on-breaking]
                   [--markdown <file>] [--json <file>]
  arbiter build-failed --project <name> [--commit <sha>] [--branch <name>] [--run-url <url>] [--log-file <file>]
  arbiter exchanges <har-or-ndjson-file> --project <name> [--commit <sha>] [--branch <name>] [--run-url <url>]
                    [--contract-version <n>]                                  recorded traffic from integration tests
  arbiter check <openapi-file> --project <name> [--contract-version <n>]     a local build's document, not stored
  arbiter diff [<contract-file>] --project <name> [--from <n>] [--to <n>]     what a contract change breaks
  arbiter breaks list --project <name>                                         accepted breaking changes
  arbiter breaks accept <fingerprint> --project <name> --reason <text> --expires <YYYY-MM-DD> [--owner <who>]
  arbiter breaks revoke <id> --project <name>

  Every command that gets a verdict takes --format <fmt> (print that format instead of the summary) and
  --out-<fmt> <file> (write it; several at once), <fmt> one of json, markdown, junit, sarif, github.

  arbiter org show | export | apply <file> [--dry-run]        the organization's settings as code (org.admin)
  arbiter members list | add <email> --role <r> | remove <email> | invite <email> --role <r>

  arbiter login --server <url> [--scopes '<scope> ...'] [--resource api|chat|mcp] [--no-browser] [--timeout <sec>]
  arbiter token [--server <url>] [--resource api|chat|mcp] [--whoami]
  arbiter logout [--server <url>] [--resource api|chat|mcp]

  <openapi-file> is JSON or YAML; "-" reads standard input.
  <har-or-ndjson-file> is the traffic integration tests recorded: a HAR 1.2 file, or NDJSON (.ndjson / .jsonl),
  one {method, url or path, status, requestHeaders?, requestBody?, responseHeaders?, responseBody?} per line.

Signing in on your own machine (CI uses a CI key instead):
  login    Opens the server's sign-in and consent page in your browser (the URL is always printed, so it also
           works where no browser can be opened) and stores the tokens in a file only you can read:
           $XDG_CONFIG_HOME/arbiter/credentials.json (default ~/.config/arbiter/credentials.json).
           Default scopes for the REST API: contracts.read contracts.write snapshots.write (what the commands
           above need: tick the write scopes on the consent page); for --resource chat orders.read
           orders.search; for --resource mcp the MCP server's baseline. offline_access is always requested, so
           the CLI gets a refresh token and can renew the token when it expires. Each resource keeps its own
           token (a /chat login never replaces the REST token). When a command needs a scope your token lacks,
           it stops and prints the exact "arbiter login --scopes ..." to run.
  token    Prints a current access token for the REST API (or --resource mcp), renewing it when it has
           expired: TOKEN=$(arbiter token). snapshot, contract and build-failed use it when no --token is given.
           --whoami prints the user and organization the token acts for instead (login prints them too).
  logout   Revokes the tokens at the server and deletes the stored credentials.

Options (flags win over environment variables):
  --url <url>        Arbiter server, e.g. https://arbiter.example.com (--server is the same)  (ARBITER_URL);
                     may be left out when you are logged in (arbiter login) to one server
  --token <token>    CI key (arb_ci_...) or OAuth access token for the REST API  (ARBITER_TOKEN)
  --project <name>   Project name                                               (ARBITER_PROJECT)
  --commit <sha>     Commit of the build        (default: GITHUB_SHA, CI_COMMIT_SHA)
  --branch <name>    Branch of the build        (default: GITHUB_HEAD_REF or GITHUB_REF_NAME, CI_COMMIT_REF_NAME)
  --run-url <url>    Link to the CI run         (default: built from GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID)
  --format <fmt>     Print the verdict as json, markdown, junit, sarif or github (workflow commands) on stdout
  --out-<fmt> <file> Write the verdict in that format to <file>: --out-json (the server's whole answer),
                     --out-markdown, --out-junit, --out-sarif, --out-github; repeatable across formats
  --junit, --markdown, --json <file>   The same as --out-junit, --out-markdown, --out-json
  --artifact <path>  SARIF: the document's path in the repository (default: the file given)
  --contract-version <n>  check, exchanges: the contract version to check against (default: the active one)
  --from <n>, --to <n>    diff: the version clients rely on (default: active) and a stored version to compare
  --log-file <file>  build-failed: the build log; its last 64 KiB are sent
  --timeout <sec>    Give up after this many seconds (default 120; login: time to finish in the browser, 300)
  --scopes <scopes>  login: ask for these scopes instead of the defaults (repeat, or separate by spaces; --scope
                     is the same)
  --resource <name>  api (the REST API, default), chat (/chat) or mcp (an MCP token, for the Inspector and scripts)
  --create           contract: create the project even when its name is close to an existing one's (without it,
                     "--project shpo" beside a project "shop" is refused with "did you mean")
  --fail-on-breaking contract: exit 1 when the version breaks clients of the active one (CI)
  --no-browser       login: only print the URL to open
  -h, --help         Show this help;  --version  Show the version

Exit codes: 0 approved (build-failed: recorded; diff: nothing breaks), 1 rejected (diff: breaking changes),
2 could not verify.
login, token, logout: 0 done, 2 failed (the message says why).
`;
