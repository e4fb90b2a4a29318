/**
 * Configuration as code against a real `wrangler dev`: `arbiter org export > org.yaml` and `arbiter org apply
 * org.yaml` round-trip an organization's settings (the difference shown before applying, --dry-run changing
 * nothing, an unknown key refused by name), and `arbiter members` lists, adds, invites and removes members.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { obtainToken } from "../helpers/oauth-http";
import { runProcess } from "../helpers/run-process";
import { sharedWranglerDev } from "../helpers/shared-wrangler-dev";
import type { WranglerDev } from "../helpers/wrangler-dev";

const CLI = resolve(import.meta.dirname, "../../bin/arbiter.mjs");
const work = mkdtempSync(join(tmpdir(), "arbiter-cli-org-"));
let server: WranglerDev;
let admin: string;

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runProcess(process.execPath, [CLI, ...args], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: join(work, "home"),
      XDG_CONFIG_HOME: join(work, "none"),
      ARBITER_URL: server.url,
      ARBITER_TOKEN: admin,
    },
  });
}

beforeAll(async () => {
  server = await sharedWranglerDev();
  admin = await obtainToken(server.url, { user: "gus", scope: "org.admin", resource: `${server.url}/api` });
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("arbiter org", () => {
  it("exports the settings as YAML and applies an edited file, showing the difference first", async () => {
    const exported = await runCli(["org", "export"]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/^# globex: settings at revision \d+/);
    expect(exported.stdout).toContain('name: "Globex Retail"');
    const original = join(work, "org.yaml");
    writeFileSync(original, exported.stdout);

    // Applying what was exported changes nothing.
    const same = await runCli(["org", "apply", original]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain("No change");

    const edited = join(work, "edited.yaml");
    writeFileSync(edited, `${readFileSync(original, "utf8")}\nauditRetentionDays: 30\n`);
    const dry = await runCli(["org", "apply", edited, "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("1 setting would change:\n  + auditRetentionDays: 30");
    expect((await runCli(["org", "export"])).stdout).not.toContain("auditRetentionDays");

    const applied = await runCli(["org", "apply", edited]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/Applied: revision \d+\./);
    const shown = (await runCli(["org", "show"])).stdout;
    expect(shown).toContain("auditRetentionDays: 30");
    expect(shown).toMatch(/Members: \d+ active of at most 10000; invitations: \d+ pending of at most 1000/);
    expect(shown).toContain("Ceilings: 600 calls per minute per quota, audit retention 365 days");

    const back = await runCli(["org", "apply", original]);
    expect(back.stdout).toContain("- auditRetentionDays: 30");
  });

  it("refuses an unknown key by name and changes nothing", async () => {
    const bad = join(work, "bad.yaml");
    writeFileSync(
      bad,
      'name: "Globex Retail"\nemailDomains: ["globex.example"]\nclaimValues: ["globex"]\ncolour: blue\n',
    );
    const refused = await runCli(["org", "apply", bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("unknown key colour");
  });
});

describe("arbiter members", () => {
  it("adds, lists, invites and removes members, and lists and withdraws invitations", async () => {
    const added = await runCli(["members", "add", "zoe@globex.example", "--role", "analyst"]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain("zoe@globex.example is a member with the role analyst");
    expect((await runCli(["members", "list"])).stdout).toMatch(/zoe@globex\.example\s+analyst\s+active/);
    const invited = await runCli(["members", "invite", "yan@globex.example", "--role", "member"]);
    expect(invited.code, invited.stderr).toBe(0);
    expect(invited.stdout).toMatch(new RegExp(`${server.url}/invitations/[A-Za-z0-9_-]{20,}`));
    const listed = (await runCli(["members", "invitations"])).stdout;
    const id = /^([0-9a-f]{12})\s+yan@globex\.example\s+member\s+pending/m.exec(listed)?.[1];
    expect(id, listed).toBeDefined();
    const withdrawn = await runCli(["members", "withdraw", id!]);
    expect(withdrawn.code, withdrawn.stderr).toBe(0);
    expect(withdrawn.stdout).toContain(`The invitation of yan@globex.example (${id}) was withdrawn`);
    expect((await runCli(["members", "invitations"])).stdout).not.toContain(id);
    const gone = await runCli(["members", "withdraw", id!]);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain(`No invitation ${id}`);
    const removed = await runCli(["members", "remove", "zoe@globex.example"]);
    expect(removed.stdout).toContain("zoe@globex.example was removed");
    const noRole = await runCli(["members", "add", "x@globex.example"]);
    expect(noRole.code).toBe(2);
    expect(noRole.stderr).toContain("--role");
  });
});
