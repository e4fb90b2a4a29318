// bin/arbiter.mjs is bundled as text (wrangler.toml rules) and served by src/api/cli.route.ts.
declare module "*/bin/arbiter.mjs" {
  const source: string;
  export default source;
}

// The worker tests read the file through Vite's ?raw import to compare it with what the Worker serves.
declare module "*/bin/arbiter.mjs?raw" {
  const source: string;
  export default source;
}
