/**
 * The Worker built once for the node tests' `wrangler dev` servers (prebuilt-worker.setup.ts builds it).
 *
 * - Build: `wrangler deploy --dry-run --outdir <dir>/bundle --metafile <dir>/meta.json`, the bundle `wrangler deploy`
 *   uploads (minified, with wrangler.toml's aliases and text modules), written once instead of once per server.
 *   What wrangler printed is kept in `<dir>/build.txt`: test/node/worker-bundle.test.ts reads its size and the
 *   metafile's inputs, so the bundle the e2e files run is the one it holds to its budget.
 * - Configuration: `<dir>/wrangler.json`, wrangler.toml as wrangler reads it, with `main` pointing at the bundle and
 *   `no_bundle` on, so `wrangler dev` serves those files as they are. Its rules type the bundle's extra modules as
 *   wrangler typed them when it built it: the policies' `.graphql` files and the CLI's `.mjs` files are text
 *   (wrangler.toml's own globs name source paths, which the bundle's hashed file names no longer match). The aliases,
 *   the minification and the source-map upload are the build's business, done by then.
 * - Use: startWranglerDev() takes this configuration when PREBUILT_WORKER_ENV names it and the caller asks for
 *   nothing the build fixed (another configuration, an environment, an unminified build).
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PREBUILT_WORKER_ENV, prebuiltWorkerReady, REPO_ROOT, runWrangler } from "./wrangler-dev";

export { PREBUILT_WORKER_ENV } from "./wrangler-dev";

/**
 * Starts building the Worker into `dir`. `config` is the path the configuration that serves the build will have
 * once `built` resolves; if the build fails, `<config>.failed` holds why (prebuiltWorkerReady() reads either).
 */
export function buildPrebuiltWorker(dir: string): { config: string; built: Promise<void> } {
  const config = join(dir, "wrangler.json");
  const built = build(dir, config).catch((error: unknown) => {
    writeFileSync(`${config}.failed`, error instanceof Error ? error.message : String(error));
  });
  return { config, built };
}

async function build(dir: string, path: string): Promise<void> {
  const printed = await runWrangler([
    "deploy",
    "--dry-run",
    "--outdir",
    join(dir, "bundle"),
    "--metafile",
    join(dir, "meta.json"),
  ]);
  writeFileSync(join(dir, "build.txt"), printed);
  // Loaded here only: the setup's process reads the configuration, the test files never need wrangler's API.
  const { experimental_readRawConfig } = await import("wrangler");
  const { rawConfig } = experimental_readRawConfig({ config: join(REPO_ROOT, "wrangler.toml") });
  const { alias: _alias, minify: _minify, upload_source_maps: _maps, ...kept } = rawConfig;
  const config = {
    ...kept,
    main: "bundle/index.js",
    no_bundle: true,
    find_additional_modules: true,
    rules: [{ type: "Text", globs: ["**/*.graphql", "**/*.mjs"] }],
  };
  // Written under another name and renamed, so a reader never sees half of it.
  writeFileSync(`${path}.tmp`, `${JSON.stringify(config, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

/** The build of this run, once done: what wrangler printed and the input paths of esbuild's metafile. */
export async function prebuiltWorkerBuild(): Promise<{ printed: string; inputs: string[] }> {
  const config = process.env[PREBUILT_WORKER_ENV];
  if (!config)
    throw new Error("no prebuilt Worker: this file must run under vitest.node.config.ts, whose setup builds it");
  await prebuiltWorkerReady(config);
  const dir = dirname(config);
  const meta = JSON.parse(readFileSync(join(dir, "meta.json"), "utf8")) as { inputs: Record<string, unknown> };
  return { printed: readFileSync(join(dir, "build.txt"), "utf8"), inputs: Object.keys(meta.inputs) };
}
