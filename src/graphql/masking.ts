/**
 * THE place where the data policy is applied. Every upstream answer passes through `applyDataPolicy` after
 * the gateway and before the client, the response cache, the examples or the chat summary see it: sensitive
 * fields become the mask unless the caller holds the scope that unmasks them, and anything the operation
 * did not select is dropped (an upstream cannot smuggle extra fields through).
 */
import type { MaskingRules } from "./output-schema";
import type { SelectionTree } from "./selection";

function project(value: unknown, tree: SelectionTree, unmasked: ReadonlySet<string>, rules: MaskingRules): unknown {
  if (value === null || value === undefined) return value ?? null;
  if (Array.isArray(value)) return value.map((item) => project(item, tree, unmasked, rules));
  if (typeof value !== "object") return value; // shape mismatch: the output check reports it
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, field] of tree) {
    if (!(key in source)) continue;
    const item = source[key];
    const scope = rules.sensitive.get(field.coordinate);
    if (scope !== undefined && !unmasked.has(scope) && item !== null) {
      out[key] = rules.mask;
    } else if (field.children) {
      out[key] = project(item, field.children, unmasked, rules);
    } else {
      out[key] = item;
    }
  }
  return out;
}

/** The scopes among `granted` that unmask something: what distinguishes one masking level from another. */
export function maskingLevel(granted: readonly string[], rules: MaskingRules): string[] {
  const relevant = new Set(rules.sensitive.values());
  return [...new Set(granted.filter((scope) => relevant.has(scope)))].sort();
}

export function applyDataPolicy(
  data: Record<string, unknown>,
  tree: SelectionTree,
  granted: readonly string[],
  rules: MaskingRules,
): Record<string, unknown> {
  return project(data, tree, new Set(maskingLevel(granted, rules)), rules) as Record<string, unknown>;
}

/** The sensitive coordinates a tree selects, with the scope that unmasks each. */
export function sensitiveFieldsIn(
  tree: SelectionTree,
  rules: MaskingRules,
): Array<{ coordinate: string; unmaskScope: string }> {
  const out: Array<{ coordinate: string; unmaskScope: string }> = [];
  for (const field of tree.values()) {
    const scope = rules.sensitive.get(field.coordinate);
    if (scope) out.push({ coordinate: field.coordinate, unmaskScope: scope });
    if (field.children) out.push(...sensitiveFieldsIn(field.children, rules));
  }
  return out;
}
