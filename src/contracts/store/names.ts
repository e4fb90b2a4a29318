/** Names that appear in URLs and records, validated in one place. */
export const PROJECT_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export const PROJECT_NAME_RULE =
  "1-64 characters: lowercase letters, digits, '.', '_' and '-', starting with a letter or digit";

export function isProjectName(value: string): boolean {
  return PROJECT_NAME_PATTERN.test(value);
}

/** Whether a principal restricted to `allowed` projects (a CI key) may touch `project`; undefined = no restriction. */
export function projectAllowed(allowed: readonly string[] | undefined, project: string): boolean {
  return allowed === undefined || allowed.includes("*") || allowed.includes(project);
}
