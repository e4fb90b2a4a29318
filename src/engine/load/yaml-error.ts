/**
 * A YAML parse error as one line a person can act on: where the mistake is, and that line's text. The yaml
 * library reports where it noticed the problem, which for a flow collection ({ or [) left open is the line after
 * it; its pretty message then ends in a code excerpt that a one-line summary cut to "at line 16, column 9:". Here
 * an unclosed bracket is traced back to the line that opened it.
 */
const MAX_LINE_SHOWN = 120;

interface YamlErrorLike {
  message: string;
  code?: string;
  pos?: [number, number];
  linePos?: [{ line: number; col: number }, ...unknown[]];
}

function lineText(lines: string[], line: number): string {
  const text = (lines[line - 1] ?? "").replace(/\s+$/, "");
  return text.length > MAX_LINE_SHOWN ? `${text.slice(0, MAX_LINE_SHOWN)}…` : text;
}

function positionOf(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let index = 0; index < offset; index++) {
    if (text.charCodeAt(index) === 10) {
      line++;
      start = index + 1;
    }
  }
  return { line, col: offset - start + 1 };
}

/** The outermost bracket left open before `offset`, on the line of the nearest one (quoted text is skipped). */
function unclosedBracket(text: string, offset: number): number | undefined {
  const stack: number[] = [];
  let quote: string | undefined;
  let lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  // Scan from a few lines back: flow collections left open are short; this bounds the work on big documents.
  for (let back = 0; back < 20 && lineStart > 0; back++) lineStart = text.lastIndexOf("\n", lineStart - 2) + 1;
  for (let index = lineStart; index < offset; index++) {
    const char = text[index];
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === "\n") quote = undefined;
      continue;
    }
    if (char === "#" && (index === 0 || /\s/.test(text[index - 1] ?? ""))) {
      const end = text.indexOf("\n", index);
      index = end === -1 ? offset : end - 1;
      continue;
    }
    if (char === '"' || char === "'") quote = char;
    else if (char === "{" || char === "[") stack.push(index);
    else if ((char === "}" || char === "]") && stack.length) stack.pop();
  }
  if (!stack.length) return undefined;
  const nearest = stack[stack.length - 1]!;
  const lineOfNearest = text.lastIndexOf("\n", nearest) + 1;
  return stack.find((index) => index >= lineOfNearest);
}

export function describeYamlError(text: string, error: unknown): string {
  const yamlError = (error ?? {}) as YamlErrorLike;
  const summary = (String(yamlError.message ?? error).split("\n")[0] ?? "").replace(
    /\s*at line \d+, column \d+:?\s*$/,
    "",
  );
  const lines = text.split("\n");
  const noticed = yamlError.linePos?.[0];
  const offset = yamlError.pos?.[0];
  if (offset !== undefined && /flow (map|sequence|collection)|end with a [}\]]|Missing closing/i.test(summary)) {
    const opened = unclosedBracket(text, offset);
    if (opened !== undefined) {
      const at = positionOf(text, opened);
      const bracket = text[opened]!;
      const closer = bracket === "{" ? "}" : "]";
      const kind = bracket === "{" ? "flow mapping" : "flow sequence";
      return `not valid YAML at line ${at.line}, column ${at.col}: the ${kind} "${bracket}" opened here is never closed: add its "${closer}" (the parser noticed at line ${noticed?.line ?? positionOf(text, offset).line}: ${summary}). Line ${at.line}: ${lineText(lines, at.line)}`;
    }
  }
  if (noticed)
    return `not valid YAML at line ${noticed.line}, column ${noticed.col}: ${summary}. Line ${noticed.line}: ${lineText(lines, noticed.line)}`;
  return `not valid YAML: ${summary}`;
}
