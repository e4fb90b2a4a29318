/**
 * Words for a schema that constrains nothing but its type ("admits any object"), so the note of
 * schema-alternative-covered can say in plain terms why an open alternative covers another. Anything more
 * constrained gets no such words (undefined): the note then says the alternative accepts all of the other.
 */
import type { SchemaView } from "../normalize/normalize-schema";

export function admitsEverything(view: SchemaView): string | undefined {
  const only = view.types?.size === 1 ? [...view.types][0] : undefined;
  if (only === undefined || view.nullable) return undefined;
  const open = view.additionalProperties === undefined || view.additionalProperties === true;
  const constrained =
    view.format !== undefined ||
    view.enumValues !== undefined ||
    view.properties.size > 0 ||
    view.required.size > 0 ||
    view.items !== undefined ||
    !open ||
    view.closed ||
    view.alternatives !== undefined ||
    view.constraints !== undefined;
  return constrained ? undefined : `admits any ${only}`;
}
