// Text modules bundled by the rules in wrangler.toml (policies/**/*.graphql).
declare module "*.graphql" {
  const text: string;
  export default text;
}
