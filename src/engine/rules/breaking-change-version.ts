import type { ConformanceRule } from "./rule";

/**
 * Version discipline in a contract's evolution: a version that breaks clients of the one before says so in
 * `info.version` (semantic versioning: a new major, or a new minor while the major is 0). Evaluated after every
 * other rule of the comparison, on the errors they reported (warnings and notes break no client); only between
 * contract versions, never in a snapshot's verdict (an implementation's build version is not the contract's).
 * Versions that are not `major.minor[.patch]` (a date such as 2026-03-10, "latest") are not judged: nothing says what
 * raising them means. The organization's conformance policy grades it like any rule (`rules`), default warning.
 */
const SEMVER = /^v?(\d{1,9})\.(\d{1,9})(?:\.(\d{1,9}))?(?:[-+][0-9A-Za-z.-]+)?$/;

interface Version {
  major: number;
  minor: number;
}

function parse(version: unknown): Version | undefined {
  const match = typeof version === "string" ? SEMVER.exec(version.trim()) : null;
  return match ? { major: Number(match[1]), minor: Number(match[2]) } : undefined;
}

function infoVersion(document: Record<string, unknown>): unknown {
  const info = document.info;
  return typeof info === "object" && info !== null ? (info as Record<string, unknown>).version : undefined;
}

/** What the next version must be at least to say it breaks clients of `before`. */
function breakingVersion(before: Version): string {
  return before.major === 0 ? `0.${before.minor + 1}.0` : `${before.major + 1}.0.0`;
}

function raisedForBreaks(before: Version, after: Version): boolean {
  if (after.major !== before.major) return after.major > before.major;
  return before.major === 0 && after.minor > before.minor;
}

export const breakingChangeVersion: ConformanceRule = {
  kind: "conformance",
  id: "breaking-change-version",
  defaultSeverity: "warning",
  purpose:
    "A contract version that breaks clients of the previous one raises info.version's major (its minor while the major is 0).",
  enforces: "https://semver.org/#spec-item-8",
  evolutionOnly: true,
  check(context) {
    const breaks = context.errorsReported();
    if (breaks === 0) return;
    const beforeText = infoVersion(context.contract.document);
    const afterText = infoVersion(context.snapshot.document);
    const before = parse(beforeText);
    const after = parse(afterText);
    if (!before || !after || raisedForBreaks(before, after)) return;
    context.report(
      "#/info/version",
      `this version breaks clients of the previous one (${breaks} breaking change${breaks === 1 ? "" : "s"}) but info.version goes from ${String(beforeText)} to ${String(afterText)}: raise it to ${breakingVersion(before)} or later so clients can tell, or make the changes compatible`,
    );
  },
};
