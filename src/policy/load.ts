import type { z } from "zod";
import { PolicyError, policyErrorFromZod } from "./errors";
import { bundledPolicyFiles, type PolicyFiles } from "./files";
import {
  devUsersFileSchema,
  organizationsFileSchema,
  scopesFileSchema,
  type DevUsersFile,
  type OrganizationsFile,
  type ScopesFile,
} from "./schemas";

export type ProtectedResourceName = "mcp" | "api";

/** The organization's rules as validated data. Built once per isolate from the bundled files. */
export interface Policy {
  readonly scopes: ScopesFile["scopes"];
  readonly scopeNames: readonly string[];
  readonly baseline: Readonly<Record<ProtectedResourceName, readonly string[]>>;
  readonly roles: OrganizationsFile["roles"];
  readonly organizations: OrganizationsFile["organizations"];
  /** tools/list shows tools the caller's role can never be granted (organizations.json; default false). */
  readonly listToolsBeyondRole: boolean;
  readonly devUsers: DevUsersFile["users"];
}

function parseFile<S extends z.ZodType>(files: PolicyFiles, file: string, schema: S): z.infer<S> {
  if (!(file in files)) throw new PolicyError(file, "", "file is missing from the bundle");
  const result = schema.safeParse(files[file]);
  if (!result.success) throw policyErrorFromZod(file, result.error);
  return result.data;
}

/** Validates every policy file and the references between them; throws PolicyError naming file and field. */
export function loadPolicy(files: PolicyFiles): Policy {
  const scopesFile = parseFile(files, "scopes.json", scopesFileSchema);
  const orgFile = parseFile(files, "organizations.json", organizationsFileSchema);
  const devFile = parseFile(files, "dev-users.json", devUsersFileSchema);
  const scopeNames = Object.keys(scopesFile.scopes);
  const known = new Set(scopeNames);

  for (const [resource, list] of Object.entries(scopesFile.baseline)) {
    list.forEach((scope, index) => {
      if (!known.has(scope))
        throw new PolicyError("scopes.json", `baseline.${resource}.${index}`, `unknown scope "${scope}"`);
    });
  }
  for (const [role, definition] of Object.entries(orgFile.roles)) {
    definition.grantable.forEach((scope, index) => {
      if (!known.has(scope)) {
        throw new PolicyError(
          "organizations.json",
          `roles.${role}.grantable.${index}`,
          `unknown scope "${scope}"; known scopes: ${scopeNames.join(", ")}`,
        );
      }
    });
  }
  for (const [org, definition] of Object.entries(orgFile.organizations)) {
    if (!(definition.defaultRole in orgFile.roles)) {
      throw new PolicyError(
        "organizations.json",
        `organizations.${org}.defaultRole`,
        `unknown role "${definition.defaultRole}"`,
      );
    }
  }
  for (const [user, definition] of Object.entries(devFile.users)) {
    if (!(definition.organization in orgFile.organizations)) {
      throw new PolicyError(
        "dev-users.json",
        `users.${user}.organization`,
        `unknown organization "${definition.organization}"`,
      );
    }
    if (!(definition.role in orgFile.roles)) {
      throw new PolicyError("dev-users.json", `users.${user}.role`, `unknown role "${definition.role}"`);
    }
  }

  return Object.freeze({
    scopes: scopesFile.scopes,
    scopeNames,
    baseline: scopesFile.baseline,
    roles: orgFile.roles,
    organizations: orgFile.organizations,
    listToolsBeyondRole: orgFile.listToolsBeyondRole,
    devUsers: devFile.users,
  });
}

let cached: Policy | undefined;

/** The bundled policy, validated on first use. A broken bundle fails every request with the PolicyError message. */
export function getPolicy(): Policy {
  cached ??= loadPolicy(bundledPolicyFiles);
  return cached;
}

/** Scopes a member with `role` may grant, in catalogue order. */
export function grantableScopes(policy: Policy, role: string): string[] {
  const allowed = new Set(policy.roles[role]?.grantable ?? []);
  return policy.scopeNames.filter((scope) => allowed.has(scope));
}
