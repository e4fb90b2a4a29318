/**
 * Joins bin/arbiter.mjs and its modules (bin/cli/) into the one file GET /cli/arbiter.mjs serves, so a pipeline
 * still downloads a single script and runs it with `node arbiter.mjs`, nothing installed.
 *
 * Not a general bundler: it reads the small module style the CLI keeps to, and refuses anything else rather
 * than guess. Each module has one `import { a, b } from "..."` per source (on one line, or its list over several
 * lines as the formatter writes it; Node built-ins as `node:...`,
 * the CLI's own files as relative paths) and `export` on top-level declarations; the entry may also say
 * `export { a } from "./..."`. Every module but the entry becomes a function scope whose result is its exports,
 * placed in dependency order; the entry stays at the top level (it may await, and it keeps its exports); the
 * built-in imports are hoisted to the top, one line per built-in.
 */

/** A module's path below bin/ ("arbiter.mjs", "cli/errors.mjs") to its source text. */
export type CliSources = Readonly<Record<string, string>>;

interface ParsedModule {
  path: string;
  /** Relative imports: resolved path and the names taken. */
  imports: { from: string; names: string[] }[];
  reexports: { from: string; names: string[] }[];
  builtins: { from: string; names: string[] }[];
  exported: string[];
  body: string;
}

export class CliBundleError extends Error {}

const IMPORT_LINE = /^import \{([^}]*)\} from "([^"]+)";$/;
const REEXPORT_LINE = /^export \{([^}]*)\} from "([^"]+)";$/;
const EXPORTED_DECLARATION = /^export ((?:async )?function\*? |const |let |class )([A-Za-z_$][\w$]*)/;
const NAME = /^[A-Za-z_$][\w$]*$/;

function names(list: string, where: string): string[] {
  const found = list
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean);
  for (const name of found)
    if (!NAME.test(name))
      throw new CliBundleError(`${where}: "${name}" is not a plain name (no "as" renames in the CLI's imports).`);
  return found;
}

/** `from` relative to the directory of `path`, both below bin/. */
function resolve(path: string, from: string): string {
  const parts = path.split("/").slice(0, -1);
  for (const part of from.split("/")) {
    if (part === "." || part === "") continue;
    if (part === "..") {
      if (parts.length === 0) throw new CliBundleError(`${path}: ${from} points outside bin/.`);
      parts.pop();
    } else parts.push(part);
  }
  return parts.join("/");
}

/**
 * The source's lines, with an import or re-export list the formatter broke over several lines
 * (`import {` ... `} from "...";`) joined back into one, numbered by its first line.
 */
function logicalLines(source: string): { line: string; number: number }[] {
  const lines = source.split("\n");
  const joined: { line: string; number: number }[] = [];
  for (let index = 0; index < lines.length; index++) {
    let line = lines[index] ?? "";
    const number = index + 1;
    if (/^(import|export) \{[^}]*$/.test(line)) {
      while (index + 1 < lines.length && !line.includes("}")) line += ` ${(lines[++index] ?? "").trim()}`;
      line = line.replace(/\{\s+/, "{ ").replace(/,?\s*\}/, " }");
    }
    joined.push({ line, number });
  }
  return joined;
}

function parse(path: string, source: string): ParsedModule {
  const parsed: ParsedModule = { path, imports: [], reexports: [], builtins: [], exported: [], body: "" };
  const body: string[] = [];
  for (const { line, number } of logicalLines(source)) {
    const where = `bin/${path}:${number}`;
    const imported = IMPORT_LINE.exec(line);
    const reexported = REEXPORT_LINE.exec(line);
    const declared = EXPORTED_DECLARATION.exec(line);
    if (imported || reexported) {
      const match = (imported ?? reexported) as RegExpExecArray;
      const list = match[1] ?? "";
      const from = match[2] ?? "";
      const taken = names(list, where);
      if (from.startsWith("node:")) {
        if (reexported) throw new CliBundleError(`${where}: re-exporting a Node built-in is not supported.`);
        parsed.builtins.push({ from, names: taken });
      } else if (from.startsWith("./") || from.startsWith("../")) {
        (imported ? parsed.imports : parsed.reexports).push({ from: resolve(path, from), names: taken });
      } else {
        throw new CliBundleError(
          `${where}: "${from}" is neither a Node built-in (node:...) nor one of the CLI's files; the CLI has no dependencies.`,
        );
      }
      continue;
    }
    if (declared) {
      parsed.exported.push(declared[2] ?? "");
      body.push(line.slice("export ".length));
      continue;
    }
    if (/^(import|export)\b/.test(line))
      throw new CliBundleError(`${where}: unsupported ${line.split(/\s/)[0]} form: ${line.slice(0, 80)}`);
    body.push(line);
  }
  parsed.body = body.join("\n").trim();
  return parsed;
}

/** The modules the entry needs, each after the modules it imports. */
function dependencyOrder(entry: string, modules: Map<string, ParsedModule>): ParsedModule[] {
  const ordered: ParsedModule[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (path: string, from: string): void => {
    if (state.get(path) === "done") return;
    if (state.get(path) === "visiting")
      throw new CliBundleError(
        `bin/${path} is part of an import circle (through bin/${from}); the CLI's modules import in one direction.`,
      );
    const module = modules.get(path);
    if (!module) throw new CliBundleError(`bin/${from} imports bin/${path}, which is not among the CLI's sources.`);
    state.set(path, "visiting");
    for (const dependency of [...module.imports, ...module.reexports]) visit(dependency.from, path);
    state.set(path, "done");
    ordered.push(module);
  };
  visit(entry, entry);
  return ordered;
}

function checkNamesExist(module: ParsedModule, modules: Map<string, ParsedModule>): void {
  for (const { from, names: taken } of [...module.imports, ...module.reexports]) {
    const exported = modules.get(from)?.exported ?? [];
    for (const name of taken)
      if (!exported.includes(name))
        throw new CliBundleError(`bin/${module.path} imports ${name} from bin/${from}, which does not export it.`);
  }
}

const slot = (path: string) => `modules[${JSON.stringify(path)}]`;

export function bundleCli(sources: CliSources, entry = "arbiter.mjs"): string {
  const modules = new Map(Object.entries(sources).map(([path, source]) => [path, parse(path, source)]));
  if (!modules.has(entry)) throw new CliBundleError(`The entry bin/${entry} is not among the CLI's sources.`);
  const ordered = dependencyOrder(entry, modules);
  for (const module of ordered) checkNamesExist(module, modules);

  // One import line per built-in; one name may not come from two built-ins.
  const builtins = new Map<string, Set<string>>();
  const builtinOf = new Map<string, string>();
  for (const module of ordered) {
    for (const { from, names: taken } of module.builtins) {
      for (const name of taken) {
        const earlier = builtinOf.get(name);
        if (earlier && earlier !== from)
          throw new CliBundleError(`${name} is imported from both ${earlier} and ${from}.`);
        builtinOf.set(name, from);
        builtins.set(from, (builtins.get(from) ?? new Set()).add(name));
      }
    }
  }

  const entryModule = ordered[ordered.length - 1] as ParsedModule; // visited last: every other module is its dependency
  const entryLines = entryModule.body.split("\n");
  const shebang = entryLines[0]?.startsWith("#!") ? entryLines.shift() : undefined;
  const header: string[] = [];
  while (entryLines[0]?.startsWith("//")) header.push(entryLines.shift() as string);

  const bindings = (module: ParsedModule) =>
    module.imports.map(({ from, names: taken }) => `const { ${taken.join(", ")} } = ${slot(from)};`);
  const out: string[] = [];
  if (shebang) out.push(shebang);
  out.push(
    ...header,
    `// Served as one file: bin/${entry} and the ${ordered.length - 1} modules it imports, joined by src/api/cli-bundle.ts.`,
  );
  for (const [from, taken] of [...builtins].sort(([a], [b]) => a.localeCompare(b)))
    out.push(`import { ${[...taken].sort().join(", ")} } from "${from}";`);
  out.push("", "const modules = {};");
  for (const module of ordered.slice(0, -1)) {
    out.push(
      "",
      `// ---- bin/${module.path} ----`,
      `${slot(module.path)} = (() => {`,
      ...bindings(module),
      module.body,
      `return { ${module.exported.join(", ")} };`,
      "})();",
    );
  }
  out.push("", `// ---- bin/${entry} ----`, ...bindings(entryModule));
  const bound = new Set(entryModule.imports.flatMap((i) => i.names));
  for (const { from, names: taken } of entryModule.reexports) {
    const fresh = taken.filter((n) => !bound.has(n));
    if (fresh.length > 0) out.push(`const { ${fresh.join(", ")} } = ${slot(from)};`);
    out.push(`export { ${taken.join(", ")} };`);
  }
  out.push(entryLines.join("\n").trim());
  if (entryModule.exported.length > 0) out.push(`export { ${entryModule.exported.join(", ")} };`);
  return `${out.join("\n")}\n`;
}
