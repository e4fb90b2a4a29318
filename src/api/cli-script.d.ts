// bin/arbiter.mjs and its modules in bin/cli/ are bundled as text (wrangler.toml rules), joined by
// src/api/cli-bundle.ts and served by src/api/cli.route.ts.
declare module "*/bin/arbiter.mjs" {
  const source: string;
  export default source;
}

declare module "../../bin/cli/*" {
  const source: string;
  export default source;
}

// The worker tests read the files through Vite's ?raw import to compare them with what the Worker serves.
declare module "*.mjs?raw" {
  const source: string;
  export default source;
}
