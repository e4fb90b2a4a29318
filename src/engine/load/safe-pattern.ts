/**
 * Contract `pattern`s run on RE2 (re2js, a pure-JavaScript port of Google's RE2): matching takes time linear in
 * the string, whatever the pattern, so `^(a+)+$` cannot stall the Worker the way a backtracking engine does.
 * JSON Schema patterns are ECMA-262 regular expressions (with the `u` flag), so each one is translated first:
 *
 * - kept as they are: literals, `|`, groups `( )` and `(?: )`, named groups `(?<n> )`, `* + ? {n,m}` and their
 *   lazy forms (counts up to 1000), `^ $` (whole-string anchors, no `m` flag), classes `[...]` and `[^...]`,
 *   `\d \D \w \W \b \B`, `\t \n \r \f \v \0`, `\xHH`, `\uHHHH` (surrogate pairs too), `\u{...}`, `\cX`,
 *   `\p{...}` / `\P{...}` for general categories and scripts (`Script=`, `sc=`, `gc=` prefixes accepted);
 * - rewritten to keep ECMA-262's meaning: `.` (no line terminators), `\s` / `\S` (ECMA's Unicode white space),
 *   `[^]` (any character), `[]` (nothing);
 * - refused, because no linear-time engine can run them: backreferences (`\1`, `\k<n>`), lookahead and
 *   lookbehind (`(?= (?! (?<= (?<!`), `\S` inside a class; also anything RE2 itself refuses (e.g. counts over 1000,
 *   binary Unicode properties such as `\p{Alphabetic}`).
 *
 * A refused pattern is named in the answer to the contract upload; a stored contract that still holds one gets
 * "cannot verify" for the parts that use it.
 */
import { RE2JS } from "re2js";

/** ECMA-262 WhiteSpace and LineTerminator, the code points `\s` matches. */
const ECMA_SPACE =
  "\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";
const ANY = "\\x{0}-\\x{10FFFF}";
const MAX_CACHED = 1000;
/** ECMA-262 accepts General_Category long names; RE2 knows the short ones. */
const CATEGORY_SHORT: Record<string, string> = {
  Letter: "L",
  Uppercase_Letter: "Lu",
  Lowercase_Letter: "Ll",
  Titlecase_Letter: "Lt",
  Modifier_Letter: "Lm",
  Other_Letter: "Lo",
  Mark: "M",
  Combining_Mark: "M",
  Nonspacing_Mark: "Mn",
  Spacing_Mark: "Mc",
  Enclosing_Mark: "Me",
  Number: "N",
  Decimal_Number: "Nd",
  digit: "Nd",
  Letter_Number: "Nl",
  Other_Number: "No",
  Punctuation: "P",
  punct: "P",
  Connector_Punctuation: "Pc",
  Dash_Punctuation: "Pd",
  Open_Punctuation: "Ps",
  Close_Punctuation: "Pe",
  Initial_Punctuation: "Pi",
  Final_Punctuation: "Pf",
  Other_Punctuation: "Po",
  Symbol: "S",
  Math_Symbol: "Sm",
  Currency_Symbol: "Sc",
  Modifier_Symbol: "Sk",
  Other_Symbol: "So",
  Separator: "Z",
  Space_Separator: "Zs",
  Line_Separator: "Zl",
  Paragraph_Separator: "Zp",
  Other: "C",
  Control: "Cc",
  cntrl: "Cc",
  Format: "Cf",
  Surrogate: "Cs",
  Private_Use: "Co",
  Unassigned: "Cn",
};
/** General category values written alone (`\p{Lu}`, `\p{Letter}`): any other lone name is a binary property. */
const CATEGORY_VALUES: ReadonlySet<string> = new Set([
  ...Object.keys(CATEGORY_SHORT),
  ...Object.values(CATEGORY_SHORT),
]);
/** Longer patterns are refused: compiling is linear too, but a contract has no use for them. */
export const MAX_PATTERN_LENGTH = 4096;

export class UnsafePattern extends Error {
  override readonly name = "UnsafePattern";
}

function hex(codePoint: number): string {
  return `\\x{${codePoint.toString(16).toUpperCase()}}`;
}

class Translator {
  private readonly chars: string[];
  private at = 0;
  private out = "";

  constructor(pattern: string) {
    this.chars = Array.from(pattern);
  }

  private refuse(what: string): never {
    throw new UnsafePattern(`${what} cannot run in linear time`);
  }

  private peek(offset = 0): string | undefined {
    return this.chars[this.at + offset];
  }

  translate(): string {
    while (this.at < this.chars.length) {
      const char = this.chars[this.at++] as string;
      if (char === "\\") this.out += this.escape(false);
      else if (char === "[") this.out += this.characterClass();
      else if (char === ".") this.out += "[^\\n\\r\\x{2028}\\x{2029}]";
      else if (char === "(") this.out += this.group();
      else this.out += char;
    }
    return this.out;
  }

  private group(): string {
    if (this.peek() !== "?") return "(";
    const next = this.peek(1);
    if (next === "=" || next === "!") this.refuse("lookahead (?= or (?!");
    if (next === "<") {
      const after = this.peek(2);
      if (after === "=" || after === "!") this.refuse("lookbehind (?<= or (?<!");
      this.at += 2;
      return "(?P<";
    }
    return "(";
  }

  /** One escape after a backslash. `inClass`: inside [...], where \b is a backspace. */
  private escape(inClass: boolean): string {
    const char = this.chars[this.at++];
    if (char === undefined) throw new UnsafePattern("the pattern ends with a lone backslash");
    switch (char) {
      case "d":
      case "D":
      case "w":
      case "W":
      case "t":
      case "n":
      case "r":
      case "f":
      case "v":
        return `\\${char}`;
      case "b":
      case "B":
        return inClass ? (char === "b" ? "\\x{8}" : this.refuse("\\B inside a class")) : `\\${char}`;
      case "s":
        return inClass ? ECMA_SPACE : `[${ECMA_SPACE}]`;
      case "S":
        return inClass ? this.refuse("\\S inside a character class") : `[^${ECMA_SPACE}]`;
      case "0":
        return "\\x{0}";
      case "x": {
        const digits = this.chars.slice(this.at, this.at + 2).join("");
        this.at += 2;
        return hex(Number.parseInt(digits, 16));
      }
      case "u":
        return hex(this.unicodeEscape());
      case "c": {
        const letter = this.chars[this.at++] ?? "";
        return hex(letter.charCodeAt(0) % 32);
      }
      case "p":
      case "P":
        return this.property(char);
      case "k":
        return this.refuse("a named backreference \\k<...>");
      default:
        if (/[1-9]/.test(char)) this.refuse(`a backreference \\${char}`);
        // Identity escapes of syntax characters (\. \/ \- \$ ...): RE2 accepts an escaped punctuation mark.
        return `\\${char}`;
    }
  }

  /** After "\u": HHHH, a surrogate pair \uHHHH\uHHHH, or {H...}. */
  private unicodeEscape(): number {
    if (this.peek() === "{") {
      const end = this.chars.indexOf("}", this.at);
      const value = Number.parseInt(this.chars.slice(this.at + 1, end).join(""), 16);
      this.at = end + 1;
      return value;
    }
    const high = Number.parseInt(this.chars.slice(this.at, this.at + 4).join(""), 16);
    this.at += 4;
    if (high >= 0xd800 && high <= 0xdbff && this.peek() === "\\" && this.peek(1) === "u") {
      const low = Number.parseInt(this.chars.slice(this.at + 2, this.at + 6).join(""), 16);
      if (low >= 0xdc00 && low <= 0xdfff) {
        this.at += 6;
        return (high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
      }
    }
    return high;
  }

  private property(kind: string): string {
    const end = this.chars.indexOf("}", this.at);
    const body = this.chars.slice(this.at + 1, end).join("");
    this.at = end + 1;
    const [name, value] = body.includes("=") ? body.split("=") : [undefined, body];
    if (name !== undefined && !["Script", "sc", "General_Category", "gc"].includes(name))
      this.refuse(`the Unicode property \\${kind}{${body}}`);
    // Alone or after gc=, the value must be a general category; a lone other name is a binary property
    // (\p{Alphabetic}, \p{Emoji}), which RE2 does not have.
    if ((name === undefined || name === "General_Category" || name === "gc") && !CATEGORY_VALUES.has(value ?? "")) {
      this.refuse(
        name === undefined
          ? `the binary Unicode property \\${kind}{${body}}`
          : `the Unicode property \\${kind}{${body}}`,
      );
    }
    return `\\${kind}{${CATEGORY_SHORT[value ?? ""] ?? value}}`;
  }

  private characterClass(): string {
    let body = "";
    const negated = this.peek() === "^";
    if (negated) this.at++;
    if (this.peek() === "]") {
      this.at++;
      // ECMA-262: [] matches nothing and [^] any character; RE2 has no empty class.
      return negated ? `[${ANY}]` : `[^${ANY}]`;
    }
    while (this.at < this.chars.length) {
      const char = this.chars[this.at++] as string;
      if (char === "]") return `[${negated ? "^" : ""}${body}]`;
      if (char === "\\") body += this.escape(true);
      // A "[" is literal in an ECMA-262 class; RE2 would read "[:alpha:]" as a POSIX class.
      else if (char === "[") body += "\\[";
      else body += char;
    }
    throw new UnsafePattern("a character class is not closed");
  }
}

/** The RE2 syntax of an ECMA-262 pattern; throws UnsafePattern when it cannot be run in linear time. */
export function translatePattern(pattern: string): string {
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new UnsafePattern(`the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  try {
    // Compiling is cheap and never backtracks; it refuses what is not ECMA-262 syntax in the first place.
    new RegExp(pattern, "u");
  } catch {
    throw new UnsafePattern("the pattern is not a valid ECMA-262 regular expression (with the u flag)");
  }
  return new Translator(pattern).translate();
}

const compiled = new Map<string, RE2JS | string>();

/** The compiled pattern, or why it cannot run; cached (bounded), refusals too. */
export function compilePattern(pattern: string): RE2JS | string {
  const cached = compiled.get(pattern);
  if (cached !== undefined) return cached;
  let result: RE2JS | string;
  try {
    result = RE2JS.compile(translatePattern(pattern));
  } catch (error) {
    const reason =
      error instanceof UnsafePattern
        ? error.message
        : `RE2 refuses it (${error instanceof Error ? error.message.replace(/^error parsing regexp: /, "") : "unknown"})`;
    result = `pattern ${JSON.stringify(pattern.length > 120 ? `${pattern.slice(0, 120)}...` : pattern)}: ${reason}`;
  }
  if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string);
  compiled.set(pattern, result);
  return result;
}

/** Why `pattern` cannot be used (a message naming it), or undefined when it can. */
export function patternProblem(pattern: string): string | undefined {
  const result = compilePattern(pattern);
  return typeof result === "string" ? result : undefined;
}

/**
 * Quantifiers outside escapes and classes. A `patternProperties` key may hold at most one: property names are
 * matched with RegExp (a backtracking engine), which is at worst quadratic with one quantifier.
 */
export function quantifierCount(pattern: string): number {
  let count = 0;
  let inClass = false;
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at];
    if (char === "\\") {
      // \p{...}, \u{...}, \k<...>: the braces are part of the escape, not a count.
      at++;
      if (pattern[at + 1] === "{") at = Math.max(at, pattern.indexOf("}", at));
    } else if (inClass) inClass = char !== "]";
    else if (char === "[") inClass = true;
    else if (char === "*" || char === "+" || char === "{" || (char === "?" && pattern[at - 1] !== "(")) count++;
  }
  return count;
}

/** Why a `patternProperties` key cannot be used, beyond patternProblem: more than one quantifier. */
export function patternPropertiesKeyProblem(key: string): string | undefined {
  return quantifierCount(key) > 1
    ? `pattern ${JSON.stringify(key)}: more than one quantifier is not supported in patternProperties (property names are matched by a backtracking engine)`
    : undefined;
}
