// arbiter org show|export|apply: an organization's settings as configuration as code (scope org.admin).
// `export` prints them as YAML (secrets are never part of them); `apply FILE` (YAML or JSON) shows the difference
// the server computes, then applies it whole (`--dry-run`: only show). The server validates with the same schema as
// every other surface and refuses unknown keys, naming them.
import { readFileSync } from "node:fs";
import { EXIT, fail } from "../errors.mjs";
import { request } from "../http.mjs";
import { settings } from "../settings.mjs";
import { printable } from "../text.mjs";

const NEEDS = ["org.admin"];
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** YAML block style for JSON values: strings are double-quoted JSON strings, which YAML reads the same. */
export function toYaml(value, indent = "") {
  const key = (name) => (PLAIN_KEY.test(name) ? name : JSON.stringify(name));
  const scalar = (item) => (typeof item === "string" ? JSON.stringify(item) : String(item));
  const nested = (item) => typeof item === "object" && item !== null && Object.keys(item).length > 0;
  if (Array.isArray(value)) {
    return value
      .map((item) =>
        nested(item)
          ? `${indent}-\n${toYaml(item, `${indent}  `)}`
          : `${indent}- ${Array.isArray(item) ? "[]" : typeof item === "object" && item !== null ? "{}" : scalar(item)}`,
      )
      .join("\n");
  }
  return Object.entries(value)
    .map(([name, item]) =>
      nested(item)
        ? `${indent}${key(name)}:\n${toYaml(item, `${indent}  `)}`
        : `${indent}${key(name)}: ${Array.isArray(item) ? "[]" : typeof item === "object" && item !== null ? "{}" : scalar(item)}`,
    )
    .join("\n");
}

function describeChange({ path, before, after }) {
  const shown = (value) => printable(JSON.stringify(value), 200);
  if (before === undefined) return `  + ${path}: ${shown(after)}`;
  if (after === undefined) return `  - ${path}: ${shown(before)}`;
  return `  ~ ${path}: ${shown(before)} -> ${shown(after)}`;
}

export async function org(values, positionals, env, out) {
  const [action, file] = positionals;
  const config = await settings(values, env, `arbiter org ${action ?? ""}`.trim(), NEEDS, { needsProject: false });
  if (action === "show") {
    const { organization, limits } = await request(config, "GET", "/api/v1/organization");
    const secrets = Object.entries(organization.secrets)
      .map(([name, set]) => `${name} ${set ? "set" : "not set"}`)
      .join(", ");
    out(
      `${organization.settings.name} (${organization.id}): ${organization.status}, revision ${organization.revision}`,
    );
    out(`Secrets: ${secrets}`);
    if (limits) {
      const { members, pendingInvitations: invitations, settings: ceilings } = limits;
      out(
        `Members: ${members.active} active of at most ${members.max}; invitations: ${invitations.pending} pending of at most ${invitations.max}`,
      );
      out(
        `Ceilings: ${ceilings.maxCallsPerMinute} calls per minute per quota, audit retention ${ceilings.maxAuditRetentionDays} days, snapshot retention ${ceilings.maxSnapshotRetentionDays} days`,
      );
    }
    out(toYaml(organization.settings));
    return EXIT.approved;
  }
  if (action === "export") {
    const { organization } = await request(config, "GET", "/api/v1/organization");
    out(`# ${organization.id}: settings at revision ${organization.revision} (arbiter org apply <file> applies them)`);
    out(toYaml(organization.settings));
    return EXIT.approved;
  }
  if (action === "apply") {
    if (!file) fail("Name the settings file to apply: arbiter org apply org.yaml (YAML or JSON).");
    let bytes;
    try {
      bytes = readFileSync(file === "-" ? 0 : file);
    } catch (error) {
      fail(`Cannot read ${file}: ${error.code === "ENOENT" ? "no such file" : error.message}.`);
    }
    const type = /\.json$/i.test(file) ? "application/json" : "application/yaml";
    const preview = await request(config, "PUT", "/api/v1/organization?dryRun=true", bytes, type);
    if (preview.difference.length === 0) {
      out("No change: the organization's settings already are the file's.");
      return EXIT.approved;
    }
    out(`${preview.difference.length} setting${preview.difference.length === 1 ? "" : "s"} would change:`);
    for (const change of preview.difference) out(describeChange(change));
    if (values["dry-run"]) return EXIT.approved;
    const applied = await request(config, "PUT", "/api/v1/organization", bytes, type);
    out(`Applied: revision ${applied.organization.revision}.`);
    return EXIT.approved;
  }
  fail("Usage: arbiter org show | arbiter org export > org.yaml | arbiter org apply org.yaml [--dry-run]");
}
