import { z } from "zod";

const scopeName = z
  .string()
  .regex(/^[a-z][a-z0-9_.]*$/, "scope names are lowercase words joined by dots or underscores");
const resourceName = z.enum(["mcp", "api"]);

export const scopesFileSchema = z.object({
  $comment: z.string().optional(),
  scopes: z.record(
    scopeName,
    z.object({
      description: z.string().min(1),
      resources: z.array(resourceName).min(1),
      /** Why granting it deserves a second look (personal data, writes, administration); shown on the consent page. */
      sensitive: z.string().min(1).optional(),
    }),
  ),
  baseline: z.object({ mcp: z.array(scopeName), api: z.array(scopeName) }),
});

export const organizationsFileSchema = z.object({
  $comment: z.string().optional(),
  /** false: tools/list leaves out tools whose scopes the caller's role can never grant. true: list them all. */
  listToolsBeyondRole: z.boolean().default(false),
  roles: z.record(
    z.string().regex(/^[a-z][a-z0-9_-]*$/),
    z.object({
      description: z.string().min(1),
      grantable: z.array(scopeName),
    }),
  ),
  organizations: z.record(
    z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "organization ids are lowercase letters, digits and dashes"),
    z.object({
      name: z.string().min(1),
      emailDomains: z
        .array(z.string().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, "expected a domain such as example.com"))
        .default([]),
      claimValues: z.array(z.string().min(1)).default([]),
      defaultRole: z.string().min(1),
    }),
  ),
});

export const devUsersFileSchema = z.object({
  $comment: z.string().optional(),
  users: z.record(
    z.string().regex(/^[a-z0-9_-]{1,32}$/),
    z.object({
      name: z.string().min(1),
      email: z.email(),
      organization: z.string().min(1),
      role: z.string().min(1),
    }),
  ),
});

export type ScopesFile = z.infer<typeof scopesFileSchema>;
export type OrganizationsFile = z.infer<typeof organizationsFileSchema>;
export type DevUsersFile = z.infer<typeof devUsersFileSchema>;
