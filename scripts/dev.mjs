#!/usr/bin/env node
// `npm start [-- --port <n>] [other wrangler dev flags]`: wrangler dev for local development on any port, with
// development sign-in on and PUBLIC_URL following the port. Tokens are bound to `${PUBLIC_URL}/mcp` and
// `${PUBLIC_URL}/api`, so a server on 8900 whose PUBLIC_URL still said 8787 answered empty 404s on /mcp and the
// metadata while /health said ok. A PUBLIC_URL given with --var wins.
import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const DEFAULT_PORT = 8787;
/** The operator key of `npm start` only: development, never a deployment's (wrangler.toml sets none). */
export const DEV_OPERATOR_KEY = "dev-operator-key";

/** The wrangler dev arguments for what `npm start --` was given. */
export function devArguments(argv, env = {}) {
  const rest = [];
  let port = env.PORT ? Number(env.PORT) : DEFAULT_PORT;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const inline = /^--port=(.*)$/.exec(arg);
    if (arg === "--port" || inline) {
      const value = inline ? inline[1] : argv[++i];
      port = Number(value);
      if (!Number.isInteger(port) || port < 1 || port > 65535)
        throw new Error(`--port expects a port number (1-65535), got "${value ?? ""}".`);
      continue;
    }
    rest.push(arg);
  }
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`PORT must be a port number (1-65535), got "${env.PORT}".`);
  const given = (name) =>
    rest.some((arg, i) => new RegExp(`^${name}[:=]`).test(arg) && (rest[i - 1] === "--var" || arg.startsWith("--var")));
  const publicUrlGiven = given("PUBLIC_URL");
  return [
    "dev",
    "--port",
    String(port),
    "--var",
    "ARBITER_DEV_SIGN_IN:true",
    ...(publicUrlGiven ? [] : ["--var", `PUBLIC_URL:http://localhost:${port}`]),
    // The operator API (/operator/v1) with a development key: docs/operations.md. A deployment sets a secret instead.
    ...(given("ARBITER_OPERATOR_KEY") ? [] : ["--var", `ARBITER_OPERATOR_KEY:${DEV_OPERATOR_KEY}`]),
    ...rest,
  ];
}

function invokedDirectly() {
  try {
    return Boolean(process.argv[1]) && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  let args;
  try {
    args = devArguments(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(`npm start: ${error.message}`);
    process.exit(2);
  }
  const port = args[args.indexOf("--port") + 1];
  console.error(`Arbiter on http://localhost:${port} (PUBLIC_URL follows the port; development sign-in on).`);
  const child = spawn("wrangler", args, {
    stdio: "inherit",
    shell: process.platform === "win32",
    env: { CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", ...process.env },
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.once("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
