// Bundled in place of the `mimetext` package (wrangler.toml [alias]): Arbiter never sends e-mail.
// `agents` imports mimetext only dynamically, inside Agent.replyToEmail(), which neither Arbiter's code nor `agents`
// itself ever calls (`grep -rn replyToEmail src node_modules/agents/dist`); the real package and its mime-db
// (about 230 KiB of the bundle) were carried by every deployment for nothing. Should anything ever reach it, the
// e-mail reply fails with this message instead of running code that was never shipped.
export function createMimeMessage(): never {
  throw new Error(
    "Arbiter does not send e-mail: mimetext is not bundled (wrangler.toml [alias], src/lib/mimetext-refusal.ts).",
  );
}
