/**
 * An organization's settings as data: what the directory stores for it and what its administrators change at
 * runtime. One zod schema is the validation for the REST routes, `arbiter org apply` and the seed, so a setting is
 * refused with the same words wherever it comes from. Secrets (the sign-in client secret, the upstream credential)
 * are never part of these settings: they are written on their own routes and stored encrypted (secrets.ts).
 */
import { z } from "zod";

/** Any organization id the directory may hold: lookups, paths and cursors accept these. */
export const ORGANIZATION_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * The ids a new organization may take: also no "--" and no trailing "-", so that a member's grant user id
 * (`<organization>--<subject>`, src/oauth/servers.ts) reads one way only. Organizations created before keep theirs.
 */
export const NEW_ORGANIZATION_ID = /^(?=.{1,63}$)[a-z0-9]+(-[a-z0-9]+)*$/;

const domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.[a-z]{2,}$/,
    "expected a domain such as example.com",
  );

const quota = z
  .object({
    limit: z.number().int().positive().describe("Calls admitted per window"),
    windowSeconds: z.number().int().min(1).max(86_400).describe("Window length in seconds"),
  })
  .strict();

/** The organization's own OpenID Connect provider: its members sign in there, and only into this organization. */
export const signInSchema = z
  .object({
    issuer: z.string().trim().url("expected the provider's issuer URL, e.g. https://login.example.com"),
    clientId: z.string().trim().min(1, "expected the client id Arbiter is registered with at the provider").max(200),
    /** Claim holding the role (a role name); absent: the member's role from the member list or the default role. */
    roleClaim: z.string().trim().min(1).max(100).optional(),
    scopes: z.string().trim().max(300).default("openid email profile"),
  })
  .strict();

export const upstreamSchema = z
  .object({
    endpoint: z.string().trim().url("expected the GraphQL endpoint URL, e.g. https://orders.example.com/graphql"),
    credentialHeader: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9-]{1,64}$/, "expected an HTTP header name such as Authorization")
      .default("Authorization"),
    /** Prefix of the credential in the header, e.g. Bearer; absent: the credential alone. */
    credentialScheme: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9-]{1,32}$/, "expected a word such as Bearer")
      .optional(),
    /** Header carrying the organization id, for upstreams shared by several organizations. */
    organizationHeader: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9-]{1,64}$/, "expected an HTTP header name such as X-Organization-Id")
      .optional(),
  })
  .strict();

export const quotasSchema = z
  .object({
    /** Every tool, resource and prompt of the organization, per client. */
    default: quota.optional(),
    /** Per tool (or `resource:<name>`, `prompt:<name>`, `subscriptions`). */
    tools: z.record(z.string().regex(/^[A-Za-z0-9_:.-]{1,80}$/, "expected a tool name"), quota).optional(),
    /** The REST API, per client. */
    rest: quota.optional(),
  })
  .strict();

/** The largest storage quota that can be set (1 TiB): a typo's extra digits are refused, not obeyed. */
const STORAGE_QUOTA_LIMIT = 1024 ** 4;

const retentionPolicy = {
  /** Days a snapshot, failed build or traffic run is kept at least (default 90). */
  snapshotDays: z.number().int().min(1).max(3650).optional(),
  /** The newest this many of each branch are kept whatever their age (default 10). */
  keepPerBranch: z.number().int().min(0).max(10_000).optional(),
};

/** How long a project's history is kept (src/contracts/store/retention-table.ts; contract versions are kept for good). */
export const retentionSchema = z
  .object({
    ...retentionPolicy,
    /** Per project, over the organization's values. */
    projects: z
      .record(
        z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "expected a project name"),
        z.object(retentionPolicy).strict(),
      )
      .optional(),
  })
  .strict();

/** What an organization's administrators may change (the operator may change it too). */
export const organizationSettingsSchema = z
  .object({
    name: z.string().trim().min(1, "expected a display name").max(120),
    /** E-mail domains whose verified users belong to this organization; each domain belongs to one organization. */
    emailDomains: z.array(domain).max(50).default([]),
    /** Values of the platform provider's organization claim (OIDC_ORG_CLAIM) that mean this organization. */
    claimValues: z.array(z.string().trim().min(1).max(200)).max(50).default([]),
    defaultRole: z.string().min(1).default("member"),
    /** true: only people on the member list may sign in; false: anyone of the organization's domains may. */
    membersOnly: z.boolean().default(false),
    signIn: signInSchema.optional(),
    /** Per role, the scopes its members may grant: within the platform's role (policies/organizations.json). */
    roleCaps: z.record(z.string(), z.array(z.string())).optional(),
    upstream: upstreamSchema.optional(),
    quotas: quotasSchema.optional(),
    /**
     * Fields masked beyond the platform's data policy (policies/data-policy.json, the floor): `Type.field` of a
     * String or ID field of the orders schema -> the scope that unmasks it. The floor's fields cannot be redefined.
     */
    dataPolicy: z
      .object({
        sensitiveFields: z.record(
          z
            .string()
            .regex(/^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$/, "expected Type.field, e.g. Order.currency"),
          z.object({ unmaskScope: z.string(), reason: z.string().max(200).optional() }).strict(),
        ),
      })
      .strict()
      .optional(),
    /**
     * The organization's conformance policy, over policies/conformance.json and constitution.json: rule severities,
     * more exemptions, constitution rules with their options, what a breaking contract version does.
     */
    conformance: z
      .object({
        rules: z.record(z.string(), z.enum(["error", "warning", "info", "off"])).optional(),
        exemptions: z
          .array(z.object({ rule: z.string().min(1), operation: z.string(), reason: z.string() }).strict())
          .max(200)
          .optional(),
        // Options are flat (a string, number, boolean or list of strings), as every constitution rule's are.
        constitution: z
          .record(z.string(), z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])))
          .optional(),
        breakingChanges: z.enum(["warn", "refuse"]).optional(),
        /** Is this break used? The evidence window, and whether a break never seen in it is a warning. */
        usage: z
          .object({
            windowDays: z.number().int().min(1).max(90).optional(),
            unusedBreaks: z.enum(["error", "warning"]).optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    /** Days the audit trail keeps records, within the platform's cap. */
    auditRetentionDays: z.number().int().min(1).optional(),
    /** How long snapshots, builds and traffic runs are kept, for the organization and per project. */
    retention: retentionSchema.optional(),
    /**
     * Bytes the organization may store (its contract store's database and its bucket content), over the operator's
     * caps.storageQuotaBytes. Set by the operator only (PATCH /api/v1/operator/organizations/:id).
     */
    storageQuotaBytes: z.number().int().positive().max(STORAGE_QUOTA_LIMIT).optional(),
  })
  .strict();

export type OrganizationSettings = z.infer<typeof organizationSettingsSchema>;
export type SignInSettings = z.infer<typeof signInSchema>;
export type UpstreamSettings = z.infer<typeof upstreamSchema>;
export type QuotaSettings = z.infer<typeof quotasSchema>;

/** What the operator sets for every organization: the ceilings organizations configure within. */
export const platformCapsSchema = z
  .object({
    /** The most calls per minute any one quota may admit (a quota's limit scaled to 60 s). */
    maxCallsPerMinute: z.number().int().positive().default(600),
    maxAuditRetentionDays: z.number().int().positive().max(3650).default(365),
    /** Days between an organization's deletion and the removal of its data (0: at once, after its export). */
    deletionGraceDays: z.number().int().min(0).max(90).default(7),
    /**
     * Days the directory's change log keeps an entry (every organization's, and the platform's own); older ones are
     * removed as new changes are logged (src/directory/store.ts, pruneChangeLog).
     */
    changeLogRetentionDays: z.number().int().min(30).max(3650).default(730),
    /**
     * Active members an organization may have (rows of the deployment's one directory): adding, inviting, an
     * invitation's use and a first sign-in past it are refused with `too_many_members`.
     */
    maxMembersPerOrganization: z.number().int().min(1).max(1_000_000).default(10_000),
    /** The longest retention.snapshotDays an organization may set. */
    maxSnapshotRetentionDays: z.number().int().positive().max(3650).default(365),
    /** Bytes an organization may store unless its own storageQuotaBytes says otherwise (default 10 GiB). */
    storageQuotaBytes: z
      .number()
      .int()
      .positive()
      .max(STORAGE_QUOTA_LIMIT)
      .default(10 * 1024 ** 3),
  })
  .strict();

export type PlatformCaps = z.infer<typeof platformCapsSchema>;

export const ORGANIZATION_STATUSES = ["active", "suspended", "deleting", "deleted"] as const;
export type OrganizationStatus = (typeof ORGANIZATION_STATUSES)[number];

/** An organization as the directory answers it: settings, never a secret's value, only whether it is set. */
export interface OrganizationRecord {
  id: string;
  status: OrganizationStatus;
  settings: OrganizationSettings;
  /** Grows by one with every change; `arbiter org apply` names the revision it read. */
  revision: number;
  createdAt: string;
  updatedAt: string;
  /** Set while deleting: when its data will be removed. */
  deleteAfter?: string;
  /** When its last export was taken (deletion needs one). */
  exportedAt?: string;
  /** Which write-only secrets are set. */
  secrets: { signInClientSecret: boolean; upstreamCredential: boolean };
  /** Seeded from the bundled policy files (acme, globex) rather than created at runtime. */
  seeded: boolean;
}

export const MEMBER_STATUSES = ["active", "removed"] as const;
export interface MemberRecord {
  email: string;
  role: string;
  status: (typeof MEMBER_STATUSES)[number];
  /** The subject they signed in with, once they have. */
  subject?: string;
  updatedAt: string;
}

export interface InvitationRecord {
  /** The first 12 hex digits of the link's hash: names the invitation in lists (the link itself is never stored). */
  id: string;
  organizationId: string;
  email: string;
  role: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string;
  status: "pending" | "used" | "expired";
  usedAt?: string;
}

export interface ChangeRecord {
  seq: number;
  time: string;
  organizationId: string;
  /** Who made it: `operator`, or the member's user id. */
  actor: string;
  action: string;
  /** Settings before and after, secrets never included (a secret change says only that it was set or cleared). */
  before: unknown;
  after: unknown;
}

/** A setting that does not validate: the field, in the dotted form of the policy file errors, and the fix. */
export class SettingsError extends Error {
  override readonly name = "SettingsError";
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field || "(settings)"}: ${problem}`);
  }
}

export function settingsErrorFromZod(error: z.ZodError, prefix = ""): SettingsError {
  const issue = error.issues[0];
  const path = issue ? issue.path.map(String).join(".") : "";
  const field = [prefix, path].filter(Boolean).join(".");
  if (issue?.code === "unrecognized_keys") {
    const keys = issue.keys.join(", ");
    return new SettingsError(
      field,
      `unknown key${issue.keys.length > 1 ? "s" : ""} ${keys}: remove ${issue.keys.length > 1 ? "them" : "it"} (see docs/console.md for the settings)`,
    );
  }
  return new SettingsError(field, issue?.message ?? "invalid");
}

/** Parses settings from outside; throws SettingsError naming the first bad field. */
export function parseSettings(value: unknown): OrganizationSettings {
  const result = organizationSettingsSchema.safeParse(value);
  if (!result.success) throw settingsErrorFromZod(result.error);
  return result.data;
}
