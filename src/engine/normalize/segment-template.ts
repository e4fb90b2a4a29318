/**
 * One path segment of a template ("{name}.{ext}", "{a}{b}{c}") against a concrete segment, in time linear in the
 * segment: each literal between parameters is placed at its earliest possible position (every parameter takes at
 * least one character), which finds a match whenever one exists. A regular expression such as
 * `^([^/]+)([^/]+)...$` backtracks instead, and twelve parameters in one segment stalled the Worker.
 * Adjacent parameters ("{a}{b}") are ambiguous: the earlier ones take one character each, the last the rest.
 */

export interface SegmentTemplate {
  /** The literal text around the parameters: parameters.length + 1 pieces, the first and last possibly "". */
  literals: string[];
  parameters: string[];
}

export function parseSegmentTemplate(template: string): SegmentTemplate {
  const literals: string[] = [];
  const parameters: string[] = [];
  let rest = template;
  for (;;) {
    const open = rest.indexOf("{");
    const close = open < 0 ? -1 : rest.indexOf("}", open);
    if (open < 0 || close < 0) {
      literals.push(rest);
      return { literals, parameters };
    }
    literals.push(rest.slice(0, open));
    parameters.push(rest.slice(open + 1, close));
    rest = rest.slice(close + 1);
  }
}

/** The parameter values in order, or undefined when the segment does not fit the template. */
export function matchSegment(template: SegmentTemplate, concrete: string): string[] | undefined {
  const { literals, parameters } = template;
  const first = literals[0] ?? "";
  const last = literals[literals.length - 1] ?? "";
  if (parameters.length === 0) return concrete === first ? [] : undefined;
  if (!concrete.startsWith(first) || concrete.length < first.length + last.length + parameters.length) return undefined;
  const end = concrete.length - last.length;
  if (!concrete.endsWith(last)) return undefined;
  // Where each run of parameters starts and ends: runs are separated by the non-empty middle literals.
  const values: string[] = [];
  let at = first.length;
  let run: number[] = [];
  const closeRun = (until: number): boolean => {
    const width = until - at;
    if (width < run.length) return false;
    run.forEach((_, position) =>
      values.push(
        position < run.length - 1
          ? concrete.slice(at + position, at + position + 1)
          : concrete.slice(at + position, until),
      ),
    );
    run = [];
    return true;
  };
  for (let index = 0; index < parameters.length; index++) {
    run.push(index);
    const literal = literals[index + 1] ?? "";
    if (index === parameters.length - 1) return closeRun(end) ? values : undefined;
    if (literal === "") continue;
    const found = concrete.indexOf(literal, at + run.length);
    if (found < 0 || found + literal.length > end) return undefined;
    if (!closeRun(found)) return undefined;
    at = found + literal.length;
  }
  return values;
}
