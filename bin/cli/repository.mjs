// Where a file sits in its repository, for the SARIF artifact and the annotations' file=: code scanning and PR
// annotations need the path from the repository root, never an absolute path (which the server would reduce to
// something that matches no file).
import { existsSync } from "node:fs";
import { basename, dirname, isAbsolute, relative, resolve } from "node:path";

/** The directory holding `.git` above `path` (a work tree's root: `.git` is a directory or, in a worktree, a file). */
function gitRoot(path) {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (existsSync(resolve(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

const posix = (path) => path.split("\\").join("/");

/** `file` relative to the git root above it; else relative to the working directory when inside it; else its name. */
export function repositoryPath(file, cwd = process.cwd()) {
  if (!file || file === "-") return undefined;
  const absolute = resolve(cwd, file);
  const root = gitRoot(absolute);
  if (root) return posix(relative(root, absolute));
  const fromCwd = relative(cwd, absolute);
  return fromCwd && !fromCwd.startsWith("..") && !isAbsolute(fromCwd) ? posix(fromCwd) : basename(absolute);
}
