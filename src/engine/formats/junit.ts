/**
 * A verdict as JUnit XML, the format every CI system shows as test results: one test case per violation
 * (errors as failures, warnings, infos and accepted breaks as passing cases with their text in system-out), or one passing
 * case when there is nothing to report.
 */
import { xmlText } from "../../lib/escape/xml";
import { messageOf } from "./markdown";
import type { VerdictReport } from "./report";

export function renderJunit(report: VerdictReport): string {
  const { verdict, project } = report;
  const failures = verdict.violations.filter((violation) => violation.severity === "error").length;
  const cases = verdict.violations.map((violation) => {
    const attributes = `name="${xmlText(`${violation.rule}: ${violation.location}`)}" classname="${xmlText(`arbiter.${project}.${violation.rule}`)}"`;
    if (violation.severity === "error") {
      return `    <testcase ${attributes}>\n      <failure message="${xmlText(messageOf(violation))}" type="${xmlText(violation.rule)}">${xmlText(`${violation.location}\n${messageOf(violation)}`)}</failure>\n    </testcase>`;
    }
    return `    <testcase ${attributes}>\n      <system-out>${xmlText(`${violation.severity}: ${messageOf(violation)}`)}</system-out>\n    </testcase>`;
  });
  if (cases.length === 0)
    cases.push(
      `    <testcase name="${xmlText(`${report.title} conforms`)}" classname="${xmlText(`arbiter.${project}`)}"/>`,
    );
  const tests = Math.max(1, verdict.violations.length);
  const counts = `tests="${tests}" failures="${failures}" errors="0"`;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="arbiter" ${counts}>`,
    `  <testsuite name="${xmlText(`arbiter ${project}: ${report.title}`)}" ${counts} skipped="0">`,
    ...cases,
    `  </testsuite>`,
    `</testsuites>`,
    ``,
  ].join("\n");
}
